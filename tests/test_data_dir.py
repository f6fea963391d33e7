"""Where sessions go and what they are called: the default data dir is platformdirs' user data
dir, computed without it on Linux; a new session's id is the UTC second of its creation.

``asks.store.files.user_data_path`` applies platformdirs' XDG rule by hand where that rule is
its answer (the launch does not import platformdirs); for every environment tried here the
path is exactly ``platformdirs.user_data_path("asks")``, including the ones where the rule does
not apply and platformdirs is asked (``HOME`` unset or relative, Android's variables).
"""

from __future__ import annotations

import re
import sys

import platformdirs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asks.store import files

XDG = st.sampled_from(
    [None, "", " ", "relative/data", "./x", "/data", "/data/", "//net/data", "/a//b/", "/"]
)
HOME = st.sampled_from([None, "", "relative", "/root", "/home/me/", "//net/home", "/"])
ANDROID = st.sampled_from([None, "/data"])


@settings(max_examples=120, deadline=None)
@given(xdg=XDG, home=HOME, android=ANDROID)
def test_the_default_data_dir_is_platformdirs_user_data_dir(
    xdg: str | None, home: str | None, android: str | None
) -> None:
    with pytest.MonkeyPatch.context() as env:
        for name, value in (("XDG_DATA_HOME", xdg), ("HOME", home), ("ANDROID_DATA", android)):
            if value is None:
                env.delenv(name, raising=False)
            else:
                env.setenv(name, value)
        if android is not None:
            env.setenv("ANDROID_ROOT", "/system")
        try:
            want = platformdirs.user_data_path("asks")
        except (RuntimeError, KeyError) as exc:  # no home at all: platformdirs' own error
            with pytest.raises(type(exc)):
                files.user_data_path()
            return
        assert files.user_data_path() == want
        assert files.default_data_dir() == want / "sessions"


def test_linux_computes_it_without_platformdirs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", "/somewhere")
    monkeypatch.delenv("ANDROID_DATA", raising=False)
    monkeypatch.setitem(sys.modules, "platformdirs", None)  # an import would raise
    assert files.user_data_path() == files.Path("/somewhere/asks")


def test_a_new_session_id_is_its_clocks_utc_second_and_six_hex_digits() -> None:
    ids = {files.new_session_id(clock=lambda: 1764680399.75) for _ in range(20)}
    assert all(re.fullmatch(r"20251202-125959-[0-9a-f]{6}", id_) for id_ in ids)
    assert len(ids) > 1  # the suffix is random
    assert files.new_session_id(clock=lambda: 0.0).startswith("19700101-000000-")

"""Work moved off the first question's path is really done ahead (issue 14).

cattrs generates an entry type's encoder on first use; :func:`warm_up_encoders` (run by the
REPL a second after start) builds them all, so the first ``group_asked`` / ``tool_result`` of
a session generates nothing between the model's tool call and the panel.
"""

from __future__ import annotations

import pytest
from cattrs.gen import make_dict_unstructure_fn

from asks.store import entries


def test_after_warm_up_no_entry_type_generates_an_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    converter = entries._make_converter()  # a fresh one: nothing generated yet
    monkeypatch.setattr(entries, "converter", lambda: converter)
    generated: list[object] = []

    def spy(*args: object, **kwargs: object) -> object:
        generated.append(args[0])
        return make_dict_unstructure_fn(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("cattrs.converters.make_dict_unstructure_fn", spy)
    monkeypatch.setattr("cattrs.gen.make_dict_unstructure_fn", spy)  # entries' own factory
    entries.warm_up_encoders()
    assert set(entries.TAGS) <= set(generated)  # every entry type got its encoder now
    generated.clear()
    for entry_type in entries.TAGS:
        converter.get_unstructure_hook(entry_type)
    assert generated == []  # and later uses generate nothing

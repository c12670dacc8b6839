"""`iac_tui/internals.py` reads private parts of the ACP SDK, Textual and textual-diff-view: this fails loudly,
naming what moved, when a release changes them (re-read that module before widening the pins)."""

from __future__ import annotations

import asyncio

from acp._transport import memory_transport_pair
from acp.client.connection import ClientSideConnection
from textual import highlight
from textual.app import App
from textual_diff_view import DiffView

from iac_tui.internals import diff_views_guessing_with, kept_highlighted_lines, receive_task


class _Client:
    pass


async def test_the_client_connection_has_a_receive_task_that_ends_with_its_input() -> None:
    ours, theirs = memory_transport_pair()
    conn = ClientSideConnection(_Client(), ours)  # type: ignore[arg-type]  # no client method is called
    task = receive_task(conn)
    assert task is not None, "ClientSideConnection._conn._recv_task is gone: iac_tui.internals.receive_task"
    assert not task.done()
    await theirs.close()
    await ours.close()
    await asyncio.wait_for(asyncio.shield(task), 5)
    assert receive_task(object()) is None


async def test_a_diff_view_keeps_its_highlighted_lines_and_guesses_through_textual_highlight() -> None:
    guessed: list[tuple[str, str | None]] = []

    def guess(code: str, path: str | None) -> str:
        guessed.append((code, path))
        return "python"

    textual_guess = highlight.guess_language
    view = DiffView("old.py", "new.py", "x = 1\n", "x = 2\n", split=False)
    assert hasattr(view, "_highlighted_code_lines"), "DiffView._highlighted_code_lines is gone: iac_tui.internals.kept_highlighted_lines"
    assert kept_highlighted_lines(view) is None
    async with App().run_test() as pilot:
        await pilot.app.mount(view)
        view._highlighted_code_lines = None  # forget what composing computed (with Textual's guess)
        guessed.clear()
        with diff_views_guessing_with(guess):  # as widgets/diff.py uses it: no await inside
            view.highlighted_code_lines  # noqa: B018  # the property highlights both sides
        assert highlight.guess_language is textual_guess, "iac_tui.internals.diff_views_guessing_with left its guess in place"
        assert sorted(guessed) == [("x = 1\n", "old.py"), ("x = 2\n", "new.py")], (
            "DiffView.highlighted_code_lines no longer calls textual.highlight.guess_language at call time: "
            "iac_tui.internals.diff_views_guessing_with guesses nothing"
        )
        kept = kept_highlighted_lines(view)
        assert kept is not None and kept is view.highlighted_code_lines, (
            "DiffView no longer keeps its highlighted lines in _highlighted_code_lines: iac_tui.internals.kept_highlighted_lines"
        )
        assert [line.plain for line in kept[0]] == ["x = 1"] and [line.plain for line in kept[1]] == ["x = 2"]


async def test_the_footers_keys_are_textuals_footer_keys_and_mount_as_compact_as_the_footer() -> None:
    from textual.binding import Binding
    from textual.widgets import Input

    from iac_tui.internals import footer_key_type
    from iac_tui.widgets.footer import COMPACT_BELOW, FittedFooter

    key_type = footer_key_type()

    class Keys(App[None]):
        BINDINGS = [Binding("f1", "help", "Help"), Binding("ctrl+o", "open", "Open")]

        def compose(self):  # type: ignore[no-untyped-def]
            yield Input()
            yield FittedFooter()

    for width in (COMPACT_BELOW - 20, COMPACT_BELOW + 20):
        async with Keys().run_test(size=(width, 10)) as pilot:
            await pilot.pause()
            footer = pilot.app.query_one(FittedFooter)
            keys = list(footer.query(key_type))
            assert len(keys) >= 2, "Footer.compose no longer yields iac_tui.internals.footer_key_type()'s class"
            assert footer.compact is (width < COMPACT_BELOW)
            for key in keys:
                assert key.compact is footer.compact and key.has_class("-compact") is footer.compact, (width, key)
            pilot.app.query_one(Input).blur()  # a change of focus rebuilds the keys
            await pilot.pause()
            for key in footer.query(key_type):
                assert key.compact is footer.compact and key.has_class("-compact") is footer.compact, (width, key)


def test_inside_sdk_models_take_no_docstrings_and_are_built_at_their_first_use() -> None:
    from importlib.metadata import version

    from pydantic import BaseModel, ConfigDict

    from iac_tui.internals import sdk_models_on_first_use

    def documented() -> type[BaseModel]:
        class Documented(BaseModel):
            model_config = ConfigDict(use_attribute_docstrings=True)

            name: str
            """The name."""

        return Documented

    with sdk_models_on_first_use():
        inside = documented()
    outside = documented()
    moved = f"pydantic {version('pydantic')} moved what iac_tui.internals.sdk_models_on_first_use relies on"
    assert inside.model_fields["name"].description is None, f"{moved}: _fields.extract_docstrings_from_cls"
    assert inside.__pydantic_complete__ is False, f"{moved}: _config.config_defaults['defer_build']"
    assert outside.model_fields["name"].description == "The name." and outside.__pydantic_complete__, "not put back"
    assert inside.model_validate({"name": "x"}).model_dump() == outside.model_validate({"name": "x"}).model_dump()
    assert inside.__pydantic_complete__ is True

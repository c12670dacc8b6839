"""Permission prompts against the real agent: keys by kind, arrows and enter, cancel, the file on disk."""

from __future__ import annotations

import pytest

from iac_tui.widgets.note import Note
from iac_tui.widgets.tool_call import ToolCallPanel
from tui_support import pending_question, ready, send, turn_done


@pytest.fixture
def quick_letters(monkeypatch):
    """An answer letter waits LETTER_GRACE (0.5 s) for a next key that would make it a word: the
    tests that type one letter and nothing after it wait 0.05 s instead (the grace itself is
    test_typed_sentences_never_answer_the_question's subject, which keeps it)."""
    monkeypatch.setattr("iac_tui.widgets.permission.LETTER_GRACE", 0.05)


def write_turns(path="notes.tf", content='locals { owner = "ops" }\n', after="Wrote it."):
    return [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": path, "content": content}}]},
        {"blocks": [{"type": "text", "text": after}]},
    ]


async def test_allow_once_writes_the_file(ws, quick_letters):
    app = ws.app(write_turns())
    bells = []
    app.bell = lambda: bells.append(1)  # the terminal bell rings on a request
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        prompt = await pending_question(pilot)
        assert app.focused is prompt
        assert bells
        panel = app.query_one(ToolCallPanel)
        assert panel.awaiting_permission and panel.kind == "edit"
        assert [o.option_id for o in prompt.options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
        assert not (ws.project / "notes.tf").exists()
        await pilot.press("a")
        await turn_done(pilot)
        assert (ws.project / "notes.tf").read_text() == 'locals { owner = "ops" }\n'
        assert panel.status == "completed" and not panel.awaiting_permission
        assert prompt.current is None and not prompt.display
        assert app.focused is app.prompt_box


async def test_reject_once_leaves_the_disk_alone(ws, quick_letters):
    app = ws.app(write_turns(after="Understood, not writing."))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        await pending_question(pilot)
        await pilot.press("r")
        await turn_done(pilot)
        assert not (ws.project / "notes.tf").exists()
        panel = app.query_one(ToolCallPanel)
        assert panel.status == "failed"
        assert "Permission denied" in str(panel.raw_output)


async def test_arrows_and_enter_choose_by_option(ws):
    app = ws.app(write_turns())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        prompt = await pending_question(pilot)
        await pilot.press("down", "down")  # allow_once -> allow_always -> reject_once
        assert prompt.options[prompt.highlighted].option_id == "reject_once"
        await pilot.press("enter")
        await turn_done(pilot)
        assert not (ws.project / "notes.tf").exists()


async def test_allow_always_is_not_asked_again(ws, quick_letters):
    turns = [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "a.tf", "content": "# a\n"}}]},
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "b.tf", "content": "# b\n"}}]},
        {"blocks": [{"type": "text", "text": "Both written."}]},
    ]
    app = ws.app(turns)
    asked = {}  # the requests by id: a message is seen once by each widget it bubbles through
    async with app.run_test(size=(100, 40), message_hook=lambda m: asked.setdefault(id(m), m) if type(m).__name__ == "PermissionRequested" else None) as pilot:
        await ready(pilot)
        await send(pilot, "write both")
        await pending_question(pilot)
        await pilot.press("A")
        await turn_done(pilot)
        assert (ws.project / "a.tf").exists() and (ws.project / "b.tf").exists()
        assert len(asked) == 1


async def test_reject_always_reject_followups_without_asking(ws, quick_letters):
    turns = [
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "a.tf", "content": "# a\n"}}]},
        {"blocks": [{"type": "tool_use", "name": "write_file", "input": {"path": "b.tf", "content": "# b\n"}}]},
        {"blocks": [{"type": "text", "text": "Neither written."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write both")
        await pending_question(pilot)
        await pilot.press("R")
        await turn_done(pilot)
        assert not (ws.project / "a.tf").exists() and not (ws.project / "b.tf").exists()
        assert [p.status for p in app.query(ToolCallPanel)] == ["failed", "failed"]


async def test_edit_permission_shows_the_diff(ws, quick_letters):
    ws.write("main.tf", 'variable "region" {\n  default = "us-east-1"\n}\n')
    turns = [
        {"blocks": [{"type": "tool_use", "name": "edit_file", "input": {"path": "main.tf", "old_string": "us-east-1", "new_string": "eu-west-1"}}]},
        {"blocks": [{"type": "text", "text": "Edited."}]},
    ]
    app = ws.app(turns)
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "move region")
        await pending_question(pilot)
        panel = app.query_one(ToolCallPanel)
        diffs = list(panel.query("EditDiff"))
        assert len(diffs) == 1
        assert diffs[0].path == "main.tf"
        assert "us-east-1" in diffs[0].old_text and "eu-west-1" in diffs[0].new_text
        await pilot.press("a")
        await turn_done(pilot)
        assert "eu-west-1" in (ws.project / "main.tf").read_text()
        assert list(panel.query("EditDiff")) == diffs  # the same diff widget, not rebuilt


async def test_escape_cancels_a_pending_permission(ws):
    app = ws.app(write_turns())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        prompt = await pending_question(pilot)
        reply = prompt.current.request.reply
        await pilot.press("escape")
        await turn_done(pilot)
        assert reply.done and reply.future.result() is None  # answered `cancelled`
        assert not (ws.project / "notes.tf").exists()
        assert any(n.text == "Cancelled." for n in app.query(Note))
        assert app.query_one(ToolCallPanel).status == "failed"
        assert prompt.current is None


# ----- the question owns the keys: typed text never answers it -----

# Each sentence starts on a question of its own (letters on) and is one way its first keys could
# answer it: a key that is no answer letter ("wait": the letters go off at once, the `a` after is
# typed); an answer letter, held for its grace, then another answer letter ("Are": A then r;
# "rather": r then a) or a key that is none ("Really": R then e); answer letters typed once the
# letters are off (a, r, A). ("ok, allow it" and "whole" added no case: 2.7 s and 0.5 s of keys.)
SENTENCES = ["wait, what is", "Are you sure?", "rather not", "Really? A file"]


async def test_typed_sentences_never_answer_the_question(ws):
    """Sentences full of a, A, r and R typed while the question is pending: nothing is written,
    the letters are suspended, the text goes to the draft, and arrows + enter still answer.
    One app takes each sentence in turn, each on a question of its own that starts as the first
    does (letters on, the draft "draft: ", the question holding the keys)."""
    app = ws.app(write_turns() * len(SENTENCES))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        for sentence in SENTENCES:
            try:
                app.prompt_box.load_text("draft: ")
                await send_keeping_draft(pilot, "write notes")
                question = await pending_question(pilot)
                assert question.letters
                await pilot.press(*keys_of(sentence))
                await pilot.pause()
                request = question.current.request
                assert not request.reply.done
                assert not (ws.project / "notes.tf").exists()
                assert not question.letters and question.highlighted is None
                assert "Letters off (you were typing)" in str(question.query_one(".question-hint").render())
                assert app.prompt_box.disabled and app.prompt_box.text == "draft: " + sentence
                await pilot.press("enter")  # enter alone (no arrow since the typing) does not pick the first option
                await pilot.pause()
                assert not request.reply.done
                await pilot.press("down", "down", "down", "enter")  # (nothing) -> allow once -> allow always -> reject once
                await turn_done(pilot)
                assert request.reply.future.result() == "reject_once"
                assert not (ws.project / "notes.tf").exists()
                assert not app.prompt_box.disabled and app.focused is app.prompt_box
                assert app.prompt_box.text == "draft: " + sentence
            except AssertionError as failure:
                failure.add_note(f"typing {sentence!r}")
                raise


async def test_arrows_stop_at_the_ends_of_the_options(ws):
    """Letters off after typing: down, up, enter is "Allow once" (an up too many does not wrap to
    "Always reject"), and downs past the end stay on the last option."""
    app = ws.app(write_turns())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        question = await pending_question(pilot)
        await pilot.press(*keys_of("wait"))
        await pilot.pause()
        assert not question.letters and question.highlighted is None
        await pilot.press("down", "up", "up")
        assert question.highlighted == 0
        await pilot.press("down", "down", "down", "down", "down")
        assert question.highlighted == len(question.options) - 1
        await pilot.press("up", "up", "up", "up", "up", "enter")
        await turn_done(pilot)
        assert (ws.project / "notes.tf").exists()


async def test_the_first_arrow_after_typing_shows_allow_once_not_an_end_of_the_list(ws):
    """Letters off after typing, nothing is highlighted: the first arrow, up or down, lands on
    "Allow once" (what a bare enter picks with letters on), never on "Always reject …"."""
    app = ws.app(write_turns())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        question = await pending_question(pilot)
        await pilot.press(*keys_of("wait"))
        await pilot.pause()
        assert not question.letters and question.highlighted is None
        await pilot.press("up")
        assert question.options[question.highlighted].kind == "allow_once"
        await pilot.press("enter")
        await turn_done(pilot)
        assert (ws.project / "notes.tf").exists()


def keys_of(text: str) -> list[str]:
    """Pilot key names for typing `text`."""
    names = {" ": "space", ",": "comma", "?": "question_mark", "!": "exclamation_mark", ".": "full_stop", ":": "colon"}
    return [names.get(c, c) for c in text]


async def send_keeping_draft(pilot, text: str) -> None:
    """Send `text` as a prompt, then put the draft that was in the box back (as a person
    who keeps a half-written message would)."""
    app = pilot.app
    draft = app.prompt_box.text
    await send(pilot, text)
    app.prompt_box.load_text(draft)


async def test_typing_when_the_question_appears_suspends_the_letters(ws, monkeypatch):
    """Keys arriving in the moment the question appears (a typing burst) must not answer it:
    `a` is then ignored as an answer and goes to the draft."""
    import asyncio

    import iac_tui.widgets.permission as permission
    from iac_tui.client import TuiClient

    monkeypatch.setattr(permission, "TYPING_WINDOW", 3600.0)  # every key typed since the send counts as "just now"
    typed = asyncio.Event()  # the request reaches the app only once the keys are typed, however fast the agent is
    ask = TuiClient.request_permission

    async def after_the_typing(self, *args, **kwargs):
        await typed.wait()
        return await ask(self, *args, **kwargs)

    monkeypatch.setattr(TuiClient, "request_permission", after_the_typing)
    app = ws.app(write_turns())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        app.prompt_box.focus()
        await pilot.press("w", "a")  # typed while the agent waits to ask
        assert app.query_one("#question").current is None
        typed.set()
        question = await pending_question(pilot)
        assert not question.letters and question.highlighted is None
        assert app.prompt_box.disabled and app.prompt_box.text == "wa"
        await pilot.press("a", "A", "r")
        await pilot.pause()
        assert not question.current.request.reply.done
        assert app.prompt_box.text == "waaAr"
        await pilot.press("down", "enter")  # allow once, deliberately
        await turn_done(pilot)
        assert (ws.project / "notes.tf").exists()
        assert app.prompt_box.text == "waaAr"


async def test_a_question_answers_by_letter_when_nobody_was_typing(ws, quick_letters):
    app = ws.app(write_turns())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "write notes")
        question = await pending_question(pilot)
        assert question.letters  # sending the prompt ended the typing
        assert app.prompt_box.disabled
        await pilot.press("a")
        await turn_done(pilot)
        assert (ws.project / "notes.tf").exists()

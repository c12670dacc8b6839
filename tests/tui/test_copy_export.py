"""Copy (f5, `c` on a code block) and export (f8, `/export FILE`): the bytes that were streamed."""

from __future__ import annotations

from iac_tui.widgets.code import CodeBlock
from iac_tui.widgets.note import Note
from tui_support import ready, send, turn_done, wait_until

CODE = 'resource "aws_s3_bucket" "logs" {\n  bucket = "acme-logs"   # two spaces, a tab:\t!\n\n}\n'
ANSWER = "Here is the bucket:\n\n```hcl\n" + CODE + "```\n\nThen run `terraform plan`.\n"


def notes(app) -> list[str]:
    return [n.text for n in app.query(Note)]


async def test_f5_copies_the_answer_and_c_a_code_block_byte_for_byte(ws):
    app = ws.app([{"blocks": [{"type": "text", "text": ANSWER}]}])
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "a bucket please")
        await turn_done(pilot)
        await pilot.press("f5")
        assert app.clipboard == ANSWER
        block = app.query_one(CodeBlock)
        await pilot.click(CodeBlock)
        assert app.focused is block
        await pilot.press("c")
        assert app.clipboard == CODE
        app.prompt_box.focus()
        await pilot.press("f5")  # the prompt box focused: the newest answer again
        assert app.clipboard == ANSWER


async def test_export_writes_the_conversation_as_streamed_and_never_overwrites(ws):
    app = ws.app([{"blocks": [{"type": "text", "text": ANSWER}]}])
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "a bucket please")
        await turn_done(pilot)
        await pilot.press("f8")
        await wait_until(pilot, lambda: any(n.startswith("Exported") for n in notes(app)), what="the export note")
        (written,) = ws.project.glob("conversation-*.md")
        text = written.read_text(encoding="utf-8")
        assert "## You\n\na bucket please\n" in text
        assert ANSWER in text  # the answer exactly as streamed, code block byte for byte
        assert text.index("a bucket please") < text.index(ANSWER)

        app.prompt_box.load_text("/export notes/today.md")
        (ws.project / "notes").mkdir()
        await pilot.press("enter")
        await wait_until(pilot, lambda: (ws.project / "notes" / "today.md").exists(), what="the named export")
        assert ANSWER in (ws.project / "notes" / "today.md").read_text(encoding="utf-8")
        (ws.project / "notes" / "today.md").write_text("mine\n")
        app.prompt_box.load_text("/export notes/today.md")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any(n.startswith("Not exported") for n in notes(app)), what="the refusal")
        assert (ws.project / "notes" / "today.md").read_text() == "mine\n"  # nothing lost
        assert app.prompt_box.text == ""


async def test_a_code_blocks_body_survives_click_focus_theme_and_resize(ws):
    """After the stream: clicking the block, moving the focus, changing the theme and resizing
    the terminal never lose or blank its body."""
    app = ws.app([{"blocks": [{"type": "text", "text": ANSWER}]}])

    def shown() -> list[str]:
        block = app.query_one(CodeBlock)
        return "\n".join(str(piece.render()) for piece in block.children).splitlines()

    want = CODE.rstrip().splitlines()
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "a bucket please")
        await turn_done(pilot)
        assert shown() == want
        await pilot.click(CodeBlock)
        await pilot.pause()
        assert shown() == want
        app.prompt_box.focus()
        await pilot.pause()
        assert shown() == want
        block = app.query_one(CodeBlock)
        app.theme = "textual-light"
        await pilot.pause()
        assert shown() == want
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert shown() == want
        assert block.region.height >= len(want) + 2  # the body and its padding, all laid out (a long line may wrap)
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert shown() == want and app.query_one(CodeBlock).code == CODE

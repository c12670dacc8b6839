"""iac-tui with a foreign agent (`foreign_agent.py`): what such agents send is shown as they meant it."""

from __future__ import annotations

from pathlib import Path

from iac_tui.screens.session_picker import SessionPicker
from iac_tui.widgets.completion import CompletionList
from iac_tui.widgets.tool_call import ToolCallPanel
from foreign_agent import ForeignAgent
from tui_support import pending_question, send, turn_done, wait_until

IDS = ["ses_dccd3f1a2b01AAAA", "ses_dccd3f1a2b01BBBB", "ses_dccd3f1a2b01CCCC"]


def foreign(ws, **kw):
    """An app driving `foreign_agent.py`'s agent, served in the app's process (these tests are
    about what it sends, not its process: tests/tui/test_signals.py spawns it)."""
    return ws.app(None, served=ForeignAgent, **kw)


async def foreign_ready(pilot) -> None:
    """Wait for the foreign agent's session."""
    app = pilot.app
    await wait_until(pilot, lambda: app.state.session_id == "foreign-1" and app.agents.state == "ready", what="the session")


async def test_a_slash_command_hint_is_shown_as_the_agent_wrote_it(ws):
    app = foreign(ws)
    async with app.run_test(size=(100, 30)) as pilot:
        await foreign_ready(pilot)
        await wait_until(pilot, lambda: app.prompt_box.commands, what="the commands")
        app.prompt_box.focus()
        await pilot.press("slash", "r", "e", "v")
        completion = app.query_one(CompletionList)
        await wait_until(pilot, lambda: completion.open, what="the completion list")
        label = str(completion.get_option_at_index(0).prompt)
        assert "/review" in label and "<focus area>" in label and "<<" not in label


async def test_the_session_picker_shows_as_much_of_the_ids_as_tells_them_apart(ws):
    app = foreign(ws)
    async with app.run_test(size=(100, 30)) as pilot:
        await foreign_ready(pilot)
        await pilot.press("ctrl+s")
        picker = await wait_until(pilot, lambda: app.screen if isinstance(app.screen, SessionPicker) else None, what="the picker")
        options = picker.query_one("#session-list")
        rows = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        assert len(rows) == 3 and all("Fix the module" in row for row in rows)
        assert "2026-05-03 10:00" in rows[0]  # newest first, in local time (UTC here)
        shown = [next(word for word in row.split() if word.startswith("ses_")) for row in rows]
        assert len(set(shown)) == 3, shown  # no two rows look the same
        assert shown[0] == IDS[2][:17]


async def test_a_multi_line_raw_input_beside_a_diff_is_not_printed_as_one_line(ws):
    """OpenCode's edit request carries `{filepath, diff: "Index: …\\n==="}` and the same change as a diff."""
    ws.write("main.tf", "a = 1\n")
    app = foreign(ws)
    async with app.run_test(size=(100, 30)) as pilot:
        await foreign_ready(pilot)
        await send(pilot, "ask-opencode")
        await pending_question(pilot)
        panel = app.query_one(ToolCallPanel)
        shown = str(panel.query_one(".tool-input").render())
        assert shown == "main.tf"
        assert len(panel.query("EditDiff")) == 1


def test_multi_line_input_values_are_shown_as_lines():
    from iac_tui.widgets.tool_text import input_summary

    raw = {"mode": "fast", "patch": "--- a\n+++ b\n"}
    assert input_summary(raw, Path("/p")) == 'mode="fast"\npatch:\n--- a\n+++ b'
    assert input_summary(raw, Path("/p"), has_diff=True) == 'mode="fast"'


async def test_markdown_tool_content_renders_as_markdown(ws):
    """Claude's adapter sends command output as a ```console block: a code block, not fence lines."""
    from textual.widgets._markdown import MarkdownFence

    from iac_tui.widgets.tool_output import ToolOutput

    app = foreign(ws)
    async with app.run_test(size=(100, 30)) as pilot:
        await foreign_ready(pilot)
        await send(pilot, "console")
        await turn_done(pilot)
        output = app.query_one(ToolCallPanel).query_one(ToolOutput)
        assert output.markdown
        fence = await wait_until(pilot, lambda: output.query(MarkdownFence).first() if output.query(MarkdownFence) else None, what="the code block")
        assert fence.lexer == "console"
        assert fence.code.rstrip("\n") == "$ terraform fmt -check\nmain.tf\nvariables.tf"
        assert not output.query_one(".output-text").display


def test_markdown_content_is_told_from_plain_output():
    from iac_tui.widgets.tool_output import is_markdown, open_fence

    assert is_markdown("```console\n$ ls\nmain.tf\n```\n")
    assert is_markdown("~~~\nplain\n~~~")
    assert not is_markdown("$ ls\nmain.tf")
    assert not is_markdown("see ```this```\nand more")
    assert not is_markdown("```console\n$ ls\n")  # never closed
    assert open_fence(["```hcl", "a = 1"]) == "```hcl"
    assert open_fence(["```hcl", "a = 1", "```", "text"]) is None


async def test_folded_markdown_output_reopens_the_fence_above_its_last_lines():
    from textual.app import App
    from textual.widgets import Markdown

    from iac_tui.widgets.tool_output import ToolOutput

    text = "```console\n" + "\n".join(f"line {i}" for i in range(40)) + "\n```"

    class Host(App):
        def compose(self):
            yield ToolOutput(text, preview_lines=5, tail=True, terminal=True, markdown=True)

    app = Host()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        source = app.query_one(ToolOutput).query_one(".output-markdown", Markdown).source
        assert source.startswith("```console\n") and "line 39" in source and "line 30" not in source


async def test_the_cost_the_agent_reports_is_shown_beside_the_tokens(ws):
    app = foreign(ws)
    async with app.run_test(size=(120, 30)) as pilot:
        await foreign_ready(pilot)
        await send(pilot, "cost")
        await turn_done(pilot)
        usage = str(app.query_one("#status-usage").render())
        assert usage == "ctx 53k/200k 26%  $0.42"


def test_costs_in_other_currencies_and_small_amounts():
    from acp.schema import Cost

    from iac_tui.widgets.status import format_cost

    assert format_cost(Cost(amount=12.5, currency="CHF")) == "12.50 CHF"
    assert format_cost(Cost(amount=0.0042, currency="USD")) == "$0.0042"
    assert format_cost(Cost(amount=1234.5, currency="EUR")) == "€1,234.50"
    assert format_cost(None) == ""


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082"
)


async def test_an_image_mentioned_or_pasted_goes_as_an_image_block(ws, tmp_path):
    """The foreign agent advertises `promptCapabilities.image`: `@diagram.png` and a pasted path
    (outside the project, quoted, as a terminal types a dropped file) arrive as image blocks."""
    ws.write("diagram.png", "")
    (ws.project / "diagram.png").write_bytes(PNG)
    outside = tmp_path / "screen shot.png"
    outside.write_bytes(PNG)
    app = foreign(ws)
    async with app.run_test(size=(120, 30)) as pilot:
        await foreign_ready(pilot)
        await send(pilot, f"image of @diagram.png and '{outside}'")
        await turn_done(pilot)
        from iac_tui.widgets.message import AgentMessage, UserMessage

        answer = app.query(AgentMessage).last().source
        assert answer == (
            f"got text; image image/png {len(PNG)} bytes {(ws.project / 'diagram.png').as_uri()}; image image/png {len(PNG)} bytes {outside.as_uri()}"
        )
        shown = str(app.query(UserMessage).last().query_one(".attachments").render())
        assert "diagram.png" in shown and "screen shot.png" in shown


async def test_without_the_image_capability_an_image_is_a_link(ws):
    from iac_tui.mentions import build_prompt

    (ws.project / "diagram.png").write_bytes(PNG)
    blocks, attached = build_prompt("see @diagram.png", ws.project, embedded_context=True, images=False)
    assert [b.type for b in blocks] == ["text", "resource_link"] and not attached[0].image
    blocks, attached = build_prompt("see @diagram.png", ws.project, embedded_context=True, images=True)
    assert [b.type for b in blocks] == ["text", "image"] and blocks[1].mime_type == "image/png" and attached[0].image

"""Unit tests of the app's plain parts: client fs confinement, mentions, file index, fuzzy, logs, formats."""

from __future__ import annotations

import asyncio
import os

import acp
import pytest
from acp import helpers
from acp.schema import AllowedOutcome, DeniedOutcome, PermissionOption
from textual.widgets import Markdown, Static

from iac_tui import messages as m
from iac_tui.client import TuiClient
from iac_tui.display import format_time, format_tokens, project_relative, strip_root
from iac_tui.file_index import list_project_files
from iac_tui.fuzzy import fuzzy_filter
from iac_tui.mentions import build_prompt, mentioned_paths
from iac_tui.state import SessionState
from iac_tui.stderr_log import StderrLog, new_log_path
from iac_tui.widgets.code import CodeBlock
from iac_tui.widgets.streaming import StreamingMarkdown


# ----- client -----


def make_client(tmp_path):
    posted = []
    client = TuiClient(posted.append, tmp_path)
    return client, posted


async def test_client_reads_and_writes_inside_the_project_only(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "a.tf").write_text("one\ntwo\nthree\n")
    (tmp_path / "secret.txt").write_text("no")
    os.symlink(tmp_path / "secret.txt", project / "link.txt")
    client, _ = make_client(project)
    assert (await client.read_text_file("s", str(project / "a.tf"))).content == "one\ntwo\nthree\n"
    assert (await client.read_text_file("s", str(project / "a.tf"), line=2, limit=1)).content == "two\n"
    await client.write_text_file("s", str(project / "sub" / "b.tf"), "new\n")
    assert (project / "sub" / "b.tf").read_text() == "new\n"
    for path in (tmp_path / "secret.txt", project / "link.txt", project / ".." / "secret.txt"):
        with pytest.raises(acp.RequestError):
            await client.read_text_file("s", str(path))
    with pytest.raises(acp.RequestError):
        await client.write_text_file("s", str(tmp_path / "evil.txt"), "x")
    with pytest.raises(acp.RequestError):
        await client.read_text_file("s", "relative.tf")
    assert not (tmp_path / "evil.txt").exists()


async def test_client_posts_updates_in_order_and_filters_other_sessions(tmp_path):
    client, posted = make_client(tmp_path)
    client.state.session_id = "s1"
    await client.session_update("s1", helpers.update_agent_message_text("a"))
    await client.session_update("s2", helpers.update_agent_message_text("other"))
    await client.session_update("s1", helpers.update_agent_thought_text("t"))
    await client.session_update("s1", helpers.start_tool_call("c1", "Read x", kind="read", status="pending"))
    await client.session_update("s1", helpers.update_plan([helpers.plan_entry("step")]))
    kinds = [type(p).__name__ for p in posted]
    assert kinds == ["MessageChunk", "ThoughtChunk", "ToolCall", "PlanChanged"]
    assert posted[0].text == "a" and posted[2].update.session_update == "tool_call"


async def test_client_permission_answers_by_id_or_cancelled(tmp_path):
    client, posted = make_client(tmp_path)
    options = [PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once")]
    task = asyncio.ensure_future(client.request_permission("s", helpers.update_tool_call("c1"), options))
    await asyncio.sleep(0)
    request = posted[-1]
    assert isinstance(request, m.PermissionRequested)
    request.reply.answer("allow_once")
    outcome = (await task).outcome
    assert isinstance(outcome, AllowedOutcome) and outcome.option_id == "allow_once"

    task = asyncio.ensure_future(client.request_permission("s", helpers.update_tool_call("c2"), options))
    await asyncio.sleep(0)
    assert not task.done()  # waiting for the answer
    assert client.cancel_permissions() == 1
    assert isinstance((await task).outcome, DeniedOutcome)
    assert client.cancel_permissions() == 0  # nothing left pending


# ----- mentions and files -----


def test_mentions_parse_paths():
    assert mentioned_paths("look at @main.tf and @modules/a\\ b.tf, thanks @main.tf") == ["main.tf", "modules/a b.tf"]
    assert mentioned_paths("mail me@example.com") == []


def test_build_prompt_embeds_text_files_and_links_others(tmp_path):
    (tmp_path / "main.tf").write_text("resource {}\n")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2")
    blocks, attached = build_prompt("see @main.tf @blob.bin @missing.tf", tmp_path, embedded_context=True)
    assert [b.type for b in blocks] == ["text", "resource", "resource_link"]
    assert blocks[0].text == "see @main.tf @blob.bin @missing.tf"
    assert blocks[1].resource.text == "resource {}\n"
    assert blocks[1].resource.uri == (tmp_path / "main.tf").resolve().as_uri()
    assert [(a.path, a.embedded) for a in attached] == [("main.tf", True), ("blob.bin", False)]
    blocks, _ = build_prompt("see @main.tf", tmp_path, embedded_context=False)
    assert [b.type for b in blocks] == ["text", "resource_link"]
    (tmp_path / "sub").mkdir()
    outside, _ = build_prompt("@../main.tf", tmp_path / "sub")  # exists, but outside the project
    assert [b.type for b in outside] == ["text"]


def test_file_index_honours_gitignore_files(tmp_path):
    for rel in ["main.tf", "build/out.tf", "modules/a/main.tf", "modules/a/cache.tmp", ".git/config", "logs/x.log", "logs/keep.log"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / ".gitignore").write_text("build/\n*.log\n!keep.log\n")
    (tmp_path / "modules" / ".gitignore").write_text("*.tmp\n")
    files = list_project_files(tmp_path)
    assert files == [".gitignore", "logs/keep.log", "main.tf", "modules/.gitignore", "modules/a/main.tf"]


def test_fuzzy_prefers_file_names_and_runs():
    assert fuzzy_filter("xyz", ["main.tf"]) == []
    ranked = [c for c, _ in fuzzy_filter("main", ["modules/main/variables.tf", "main.tf", "domain.tf"])]
    assert ranked[0] == "main.tf"
    ranked = [c for c, _ in fuzzy_filter("vpc", ["modules/vpc/main.tf", "vpc.tf", "variables_pc.tf"])]
    assert ranked[0] == "vpc.tf"


# ----- logs, formats, state -----


def test_stderr_log_keeps_the_tail_and_the_whole_file(tmp_path):
    path = new_log_path(tmp_path / "logs")
    log = StderrLog(path, max_lines=3)
    log.feed(b"one\ntwo\nthr")
    log.feed(b"ee\nfour\npart")
    assert log.tail(10) == ["two", "three", "four", "part"]
    assert log.tail(2) == ["four", "part"]
    log.close()
    assert path.read_bytes() == b"one\ntwo\nthree\nfour\npart"


def test_old_logs_are_pruned(tmp_path):
    for i in range(30):
        (tmp_path / f"agent-stderr-2020-{i:02d}.log").write_text("x")
    new_log_path(tmp_path)
    assert len(list(tmp_path.glob("agent-stderr-*.log"))) == 19


def test_formats(tmp_path):
    assert [format_tokens(n) for n in (950, 1000, 12_345, 200_000, 1_500_000)] == ["950", "1k", "12.3k", "200k", "1.5M"]
    assert project_relative(str(tmp_path / "a" / "b.tf"), tmp_path) == "a/b.tf"
    assert strip_root(f"Edit {tmp_path}/main.tf", tmp_path) == "Edit main.tf"
    assert format_time("2026-03-04T05:06:07+00:00") == "2026-03-04 05:06"  # TZ=UTC in these tests
    assert format_time(None) == ""


def test_state_settings_from_config_options_and_modes():
    from acp.schema import SessionConfigOptionSelect, SessionConfigSelectOption, SessionMode, SessionModeState

    state = SessionState()
    state.modes = SessionModeState(current_mode_id="a", available_modes=[SessionMode(id="a", name="A"), SessionMode(id="b", name="B")])
    assert state.setting("mode").via_modes and state.setting("mode").current_name == "A"
    state.config_options = [
        SessionConfigOptionSelect(type="select", id="m", name="Model", category="model", current_value="x",
                                  options=[SessionConfigSelectOption(value="x", name="X")]),
        SessionConfigOptionSelect(type="select", id="mode", name="Mode", category="mode", current_value="b",
                                  options=[SessionConfigSelectOption(value="a", name="A"), SessionConfigSelectOption(value="b", name="B")]),
    ]
    assert state.setting("model").current_name == "X"
    assert not state.setting("mode").via_modes and state.setting("mode").current == "b"
    state.set_mode("a")
    assert state.setting("mode").current == "a" and state.modes.current_mode_id == "a"


def test_state_settings_take_the_choices_of_grouped_options():
    from acp.schema import SessionConfigOptionSelect, SessionConfigSelectGroup, SessionConfigSelectOption

    state = SessionState()
    state.config_options = [
        SessionConfigOptionSelect(type="select", id="m", name="Model", category="model", current_value="y", options=[
            SessionConfigSelectGroup(group="fast", name="Fast", options=[SessionConfigSelectOption(value="x", name="X")]),
            SessionConfigSelectGroup(group="big", name="Big", options=[SessionConfigSelectOption(value="y", name="Y", description="d")]),
        ]),
    ]
    setting = state.setting("model")
    assert [(c.value, c.name, c.description) for c in setting.choices] == [("x", "X", None), ("y", "Y", "d")]
    assert setting.current_name == "Y"


# ----- streaming markdown -----


async def test_streaming_markdown_splits_long_text_into_segments_at_paragraphs():
    from textual.app import App

    paragraph = ("lorem ipsum " * 40).strip() + "\n\n"
    fence = "```hcl\n" + 'resource "x" "y" {}\n\n' * 200 + "```\n\n"

    class Host(App):
        def compose(self):
            yield StreamingMarkdown()

    app = Host()
    async with app.run_test() as pilot:
        widget = app.query_one(StreamingMarkdown)
        text = paragraph * 20 + fence + paragraph * 5
        for piece in text.split(" "):
            await widget.write(piece + " ")
        await widget.finish()
        await pilot.pause()
        segments = [d for d in widget.documents if isinstance(d, Markdown)]  # the Markdown documents it shows
        assert len(segments) >= 3
        assert "".join(d.source for d in widget.documents) == widget.source
        # the code fence is one code block, of its own
        (code,) = [d for d in widget.documents if isinstance(d, CodeBlock)]
        assert code.source == fence.removesuffix("\n")
        for segment in segments:
            assert "```" not in segment.source


ANSWER_WITH_CODE = "# Steps\n\nStep 0: aaa.\n\nStep 1: bbb.\n\n```sh\nls\n```\n\nStep 2: ccc.\n\nStep 3: ddd."


@pytest.mark.parametrize("size", [1, 13, 1000])
async def test_only_the_outer_margins_of_an_answer_are_trimmed(size, monkeypatch):
    """An answer's first block has no top margin, its last block no bottom margin, a paragraph
    before a code block none either (the code block's margin is the gap); every other block keeps
    its stylesheet's margins (a blank line between paragraphs), however the text is chunked (when
    one append mounted several blocks, the old last one once kept its trim and the blank line
    after it was lost on screen), and in segments of their own (see widgets/streaming.py). A
    thought's body is not trimmed."""
    from textual.app import App

    from iac_tui.widgets import streaming
    from iac_tui.widgets.message import AgentMessage
    from iac_tui.widgets.documents import Segment

    monkeypatch.setattr(streaming, "SEGMENT_CHARS", 5)  # a new segment at every block

    class Host(App):
        def compose(self):
            yield AgentMessage(id="answer")
            yield StreamingMarkdown(id="thought")
            yield AgentMessage(id="code-last")

    app = Host()
    async with app.run_test(size=(60, 40)) as pilot:
        answer, thought = app.query_one("#answer", AgentMessage), app.query_one("#thought", StreamingMarkdown)
        for widget in (answer, thought):
            for i in range(0, len(ANSWER_WITH_CODE), size):
                await widget.write(ANSWER_WITH_CODE[i : i + size])
            await widget.finish()
        await pilot.pause()
        for widget in (answer, thought):
            documents = widget.documents
            assert [type(d) for d in documents] == [Segment] * 3 + [CodeBlock] + [Segment] * 2
            blocks = [block for d in documents for block in (d.children if isinstance(d, Segment) else [d])]
            assert len(blocks) == 6
            margins = [(b.styles.margin.top, b.styles.margin.bottom) for b in blocks]
            css = [(b.styles.base.margin.top, b.styles.base.margin.bottom) for b in blocks]
            assert css[0][0] > 0 and css[2][1] > 0 and css[5][1] > 0  # (so that trimming shows)
            if widget is thought:
                assert margins == css
                continue
            trimmed = {(0, 0), (2, 1), (5, 1)}  # (block, side): the first top, before the code and the last bottom
            assert margins == [tuple(0 if (i, side) in trimmed else m[side] for side in (0, 1)) for i, m in enumerate(css)]
        code_last = app.query_one("#code-last", AgentMessage)  # a code block that ends the answer
        await code_last.write("Intro.\n\n```sh\nls\n```\n")
        await code_last.finish()
        await pilot.pause()
        (code,) = [d for d in code_last.documents if isinstance(d, CodeBlock)]
        assert code.styles.base.margin.bottom > 0 and code.styles.margin.bottom == 0
        assert code.styles.margin.top == code.styles.base.margin.top > 0


FENCED = "Intro.\n\n```python\n" + "".join(f"x_{i} = {i}\n" for i in range(40)) + "```\n\nAfter `code`.\n\n~~~\nraw ``` inside\n~~~~\n\n- list\n  ```bash\n  ls\n  ```\n\n````md\n```\nnested\n````\nend\n"


@pytest.mark.parametrize("size", [1, 2, 3, 7, 20, 1000])
async def test_fenced_code_streams_into_code_blocks_whatever_the_chunks(size):
    """A fence at the start of a line becomes a CodeBlock (body byte for byte, highlighted as
    a whole at the end); a fence inside a list stays Markdown's; nothing is lost or reordered."""
    from textual.app import App

    class Host(App):
        def compose(self):
            yield StreamingMarkdown()

    app = Host()
    async with app.run_test(size=(80, 30)) as pilot:
        widget = app.query_one(StreamingMarkdown)
        for i in range(0, len(FENCED), size):
            await widget.write(FENCED[i : i + size])
        await widget.finish()
        await pilot.pause()
        assert "".join(d.source for d in widget.documents) == FENCED == widget.source
        blocks = [d for d in widget.documents if isinstance(d, CodeBlock)]
        assert [(b.language, b.code) for b in blocks] == [
            ("python", "".join(f"x_{i} = {i}\n" for i in range(40))),
            ("", "raw ``` inside\n"),
            ("md", "```\nnested\n"),
        ]
        assert all(b.finished for b in blocks)
        assert any("```bash" in d.source for d in widget.documents if isinstance(d, Markdown))  # the list's fence is Markdown's
        shown = [str(piece.render()) for piece in blocks[0].query(Static)]
        assert "\n".join(shown).splitlines() == [f"x_{i} = {i}" for i in range(40)]


async def test_finish_renders_the_last_words_before_returning():
    from textual.app import App

    class Host(App):
        def compose(self):
            yield StreamingMarkdown()

    words = [f"word{i} " for i in range(60)] + ["last."]
    app = Host()
    async with app.run_test() as pilot:
        for _ in range(5):
            widget = StreamingMarkdown()
            await app.mount(widget)
            for word in words:
                await widget.write(word)
            await widget.finish()
            # finish() returns only when the Markdown holds and shows everything: no pause here
            paragraphs = list(widget.query("MarkdownParagraph"))
            assert paragraphs and str(paragraphs[-1].content).endswith("last.")
            await widget.remove()
        await pilot.pause()


def test_attachment_names_of_replayed_resource_blocks():
    import acp

    from iac_tui.client import attachment_name

    embedded = acp.resource_block(acp.embedded_text_resource("file:///p/a%20b.tf", "# b"))
    assert attachment_name(embedded) == "a b.tf"
    assert attachment_name(acp.resource_link_block("vars.tf", "file:///p/vars.tf")) == "vars.tf"
    assert attachment_name(acp.text_block("plain")) is None


async def test_client_writes_new_files_with_the_usual_mode_and_keeps_an_existing_mode(tmp_path):
    client, _ = make_client(tmp_path)
    umask = os.umask(0)
    os.umask(umask)
    await client.write_text_file("s", str(tmp_path / "new.tf"), "x\n")
    assert (tmp_path / "new.tf").stat().st_mode & 0o777 == 0o666 & ~umask  # as `open(path, "w")` makes it
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o750)
    await client.write_text_file("s", str(script), "#!/bin/sh\necho hi\n")
    assert script.stat().st_mode & 0o777 == 0o750
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


async def test_escape_sequences_from_the_agent_never_reach_the_terminal():
    """Agent stderr and tool output may hold ANSI sequences; Textual would pass ESC through raw."""
    from textual.app import App
    from textual.widgets import Static

    from iac_tui.widgets.agent_error import AgentError
    from iac_tui.widgets.tool_output import ToolOutput

    noisy = "\x1b[2J\x1b[H\x1b[31mError:\x1b[0m no such profile"

    class Host(App):
        def compose(self):
            yield AgentError("The agent exited with status 1.", [noisy], None)
            yield ToolOutput(noisy, preview_lines=5)
            yield ToolOutput(noisy, preview_lines=5, terminal=True)

    app = Host()
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        for widget in app.query(".agent-error-stderr, .output-text").results(Static):
            shown = "".join(strip.text for strip in widget.render_lines(widget.region.reset_offset))
            assert "Error: no such profile" in shown
            assert "\x1b" not in shown


# ----- gathering text chunks -----


async def test_a_run_of_text_chunks_is_joined_and_keeps_its_place_in_order():
    posted = []
    gatherer = m.Gatherer(posted.append, interval=10.0)
    gatherer.post(m.MessageChunk("s", "Hel"))  # the first goes at once
    for text in ("lo", ", ", "world"):
        gatherer.post(m.MessageChunk("s", text))  # held, to be joined
    gatherer.post(m.ThoughtChunk("s", "hmm"))  # another kind: the held run goes first, then this one is held
    gatherer.post(m.ThoughtChunk("s", "…"))
    ended = m.TurnEnded("s", "end_turn")
    gatherer.post(ended)  # not a chunk: posted at once, after what was held
    assert [(type(p).__name__, getattr(p, "text", None)) for p in posted] == [
        ("MessageChunk", "Hel"),
        ("MessageChunk", "lo, world"),
        ("ThoughtChunk", "hmm…"),
        ("TurnEnded", None),
    ]
    assert posted[-1] is ended


async def test_held_chunks_go_when_the_interval_is_over_and_other_sessions_or_roles_are_not_joined():
    posted = []
    gatherer = m.Gatherer(posted.append, interval=0.05)
    gatherer.post(m.MessageChunk("s", "a"))
    gatherer.post(m.MessageChunk("s", "b"))
    assert [p.text for p in posted] == ["a"]
    await asyncio.sleep(0.2)  # nothing else comes: the held chunk is not kept waiting
    assert [p.text for p in posted] == ["a", "b"]
    gatherer.post(m.MessageChunk("s", "c", "user"))
    gatherer.post(m.MessageChunk("t", "d"))  # another session
    gatherer.post(m.MessageChunk("t", "e", "user"))  # another role
    gatherer.post(m.MessageChunk("t", "", "user", attachment="main.tf"))  # a file: never joined
    gatherer.post(m.MessageChunk("t", "f", "user"))
    gatherer.flush()
    assert [(p.session_id, p.role, p.text, p.attachment) for p in posted[2:]] == [
        ("s", "user", "c", None),
        ("t", "agent", "d", None),
        ("t", "user", "e", None),
        ("t", "user", "", "main.tf"),
        ("t", "user", "f", None),
    ]


async def test_a_message_removed_while_text_is_written_to_it_drops_the_rest_quietly(monkeypatch):
    """A new session's `clear()` or the app's close may remove a message while one of its flushes
    is mounting (seen with a restarted agent under load: `MountError: Can't mount widget(s)
    before Segment() is mounted`): the flush stops, nothing raises."""
    from textual.app import App

    from iac_tui.widgets import streaming

    monkeypatch.setattr(streaming, "SEGMENT_CHARS", 20)  # a segment per paragraph: many mounts per flush

    class Host(App):
        def compose(self):
            yield StreamingMarkdown()

    text = "".join(f"Paragraph {i} with some words.\n\n" for i in range(200))
    app = Host()
    async with app.run_test() as pilot:
        for delay in range(6):  # the removal lands at different points of the flush
            widget = StreamingMarkdown()
            await app.mount(widget)
            writing = asyncio.create_task(widget.write(text))
            for _ in range(delay):
                await asyncio.sleep(0)
            await widget.remove()
            await writing  # (raised MountError)
            assert not widget.is_attached
        await pilot.pause()


async def test_an_answers_blocks_stand_one_blank_line_apart_across_its_chapters(monkeypatch):
    """A streamed answer's documents sit in chapters (`widgets/streaming.py`); the blank line
    between two documents stays one line where a chapter ends (Textual merges the margins of
    siblings only: two code blocks on either side of a chapter's end stood 2 lines apart)."""
    from pathlib import Path

    from textual.app import App

    from iac_tui.widgets import streaming
    from iac_tui.widgets.conversation import Conversation
    from iac_tui.widgets.message import AgentMessage
    from iac_tui.widgets.documents import Chapter

    monkeypatch.setattr(streaming, "SEGMENT_CHARS", 5)  # a segment per paragraph

    class Host(App):
        def compose(self):
            yield Conversation(Path("."), max_rows=10**8)

    app = Host()
    async with app.run_test(size=(80, 200)) as pilot:
        conversation = app.query_one(Conversation)
        await conversation.add_user("q")
        text = "Intro.\n\n" + "".join(f"```py\nx = {i}\n```\n" for i in range(12)) + "".join(f"Paragraph {i}.\n\n```sh\nls {i}\n```\n\n" for i in range(8))
        await conversation.agent_text(text)
        await conversation.close_open()
        await pilot.pause()
        await pilot.pause()
        answer = conversation.query_one(AgentMessage)
        documents = answer.documents
        assert len(answer.query(Chapter)) >= 2 and len(documents) >= 1 + 12 + 16
        gaps = [b.region.y - (a.region.y + a.region.height) for a, b in zip(documents, documents[1:])]
        segment_gaps = {gap for a, gap in zip(documents, gaps) if not isinstance(a, CodeBlock)}
        code_gaps = {gap for a, gap in zip(documents, gaps) if isinstance(a, CodeBlock)}
        assert code_gaps == {1}, gaps  # a code block's margin is the blank line after it
        assert segment_gaps <= {0, 1}, gaps  # (a segment's last paragraph keeps its own margin inside it)

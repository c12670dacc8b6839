"""The session store and conversation repair, in process."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

import pytest

from iac_code.core.conversation import (
    INTERRUPTED,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    repair,
    user_text,
)
from iac_code.session_store import store as store_module
from iac_code.session_store.store import (
    InvalidCursor,
    SessionMeta,
    SessionNotFound,
    SessionStore,
    title_from,
)


def assistant_tool(*ids: str) -> Message:
    return Message(role="assistant", content=[ToolUseBlock(id=i, name="read_file", input={"path": "x"}) for i in ids])


def results(*ids: str) -> Message:
    return Message(role="user", content=[ToolResultBlock(tool_use_id=i, content="ok") for i in ids])


def test_repair_answers_dangling_tool_uses():
    history = [user_text("hi"), assistant_tool("a", "b"), results("a"), assistant_tool("c"), user_text("next")]
    fixed = repair(history)
    assert [r.tool_use_id for r in fixed[2].tool_results()] == ["a", "b"]
    assert fixed[2].tool_results()[1].content == INTERRUPTED and fixed[2].tool_results()[1].is_error
    assert [r.tool_use_id for r in fixed[4].tool_results()] == ["c"]
    assert fixed[4].text() == "next" and len(fixed) == 5  # results first, then the user's text
    # a trailing tool use gets its answer appended; orphan results are dropped
    fixed = repair([user_text("hi"), results("zzz"), assistant_tool("d")])
    assert [m.role for m in fixed] == ["user", "assistant", "user"]
    assert fixed[-1].tool_results()[0].tool_use_id == "d"
    assert repair(history) is not history and len(history) == 5


def test_history_round_trip_with_reset(tmp_path):
    store = SessionStore(tmp_path)
    journal = store.create(SessionMeta(session_id="s1", cwd="/p"))
    journal.append(user_text("one"))
    journal.append(Message(role="assistant", content=[TextBlock(text="two")]))
    journal.reset([user_text("summary")], "compaction")
    journal.append(Message(role="assistant", content=[TextBlock(text="after")]))
    meta, messages = store.load("s1")
    assert meta.cwd == "/p"
    assert [m.text() for m in messages] == ["summary", "after"]


def test_unknown_and_malformed_ids(tmp_path):
    store = SessionStore(tmp_path)
    with pytest.raises(SessionNotFound):
        store.load("missing")
    with pytest.raises(SessionNotFound):
        store.load("../../etc/passwd")
    assert not store.exists("../x")


def test_listing_reads_only_metadata(tmp_path, monkeypatch):
    store = SessionStore(tmp_path)
    base = datetime(2026, 1, 1, tzinfo=UTC)
    for i in range(200):  # (1,000 before: 2,000 files for the same paging, ~1 s here)
        store.create(SessionMeta(session_id=f"s{i:04d}", cwd="/p" if i % 2 else "/q", updated_at=base + timedelta(minutes=i)))
    monkeypatch.setattr(SessionStore, "load", lambda *a: pytest.fail("list parsed a history"))
    monkeypatch.setattr(store_module, "_RECORD", None)  # any history parse would crash
    page = store.list("/p", limit=40)
    assert len(page.sessions) == 40
    assert page.sessions[0].session_id == "s0199"
    rest = store.list("/p", cursor=page.next_cursor, limit=1000)
    assert len(rest.sessions) == 60 and rest.next_cursor is None
    assert {m.session_id for m in page.sessions}.isdisjoint(m.session_id for m in rest.sessions)
    with pytest.raises(InvalidCursor):
        store.list("/p", cursor="garbage!")


def test_secrets_are_redacted_in_history_and_metadata(tmp_path):
    store = SessionStore(tmp_path, secrets=["sk-very-secret-key"])
    journal = store.create(SessionMeta(session_id="s1", cwd="/p", title="key sk-very-secret-key"))
    journal.append(user_text("use sk-very-secret-key"))
    for path in tmp_path.iterdir():
        assert "sk-very-secret-key" not in path.read_text()
    assert store.load("s1")[1][0].text() == "use [REDACTED]"


def test_fork_copies_history(tmp_path):
    store = SessionStore(tmp_path)
    store.create(SessionMeta(session_id="a", cwd="/p")).append(user_text("hello"))
    store.fork("a", SessionMeta(session_id="b", cwd="/p", parent_id="a")).append(user_text("branch"))
    assert [m.text() for m in store.load("a")[1]] == ["hello"]
    assert [m.text() for m in store.load("b")[1]] == ["hello", "branch"]
    assert store.read_meta("b").parent_id == "a"


def test_title_from_first_line():
    assert title_from("\n  Add a   subnet \nmore") == "Add a subnet"
    assert title_from("x" * 200).endswith("…") and len(title_from("x" * 200)) == 80
    assert title_from("   ") is None


def test_a_torn_last_line_does_not_swallow_the_next_record(tmp_path):
    store = SessionStore(tmp_path)
    store.create(SessionMeta(session_id="s1", cwd="/p")).append(user_text("one"))
    with open(tmp_path / "s1.jsonl", "a") as f:
        f.write('{"type": "message", "message": {"role": "as')  # the server died mid-write
    assert [m.text() for m in store.load("s1")[1]] == ["one"]
    store.journal("s1").append(user_text("two"))  # a restarted server goes on appending
    assert [m.text() for m in store.load("s1")[1]] == ["one", "two"]
    store.fork("s1", SessionMeta(session_id="s2", cwd="/p")).append(user_text("three"))
    assert [m.text() for m in store.load("s2")[1]] == ["one", "two", "three"]


def test_listing_copes_with_times_without_a_timezone(tmp_path):
    store = SessionStore(tmp_path)
    store.create(SessionMeta(session_id="aware", cwd="/p"))
    (tmp_path / "naive.json").write_text('{"session_id": "naive", "cwd": "/p", "updated_at": "2020-01-01T00:00:00"}')
    assert [m.session_id for m in store.list("/p").sessions] == ["aware", "naive"]
    naive_cursor = store_module.base64.urlsafe_b64encode(b'["2030-01-01T00:00:00", "x"]').decode()
    with pytest.raises(InvalidCursor):
        store.list("/p", cursor=naive_cursor)


def test_listing_sees_a_rewrite_within_one_clock_tick(tmp_path):
    store = SessionStore(tmp_path)
    meta = SessionMeta(session_id="s1", cwd="/p", title="first")
    store.create(meta)
    stamp = (tmp_path / "s1.json").stat().st_mtime_ns
    assert store.list("/p").sessions[0].title == "first"
    meta.title = "again"  # same length: same file size
    store.write_meta(meta)
    os.utime(tmp_path / "s1.json", ns=(stamp, stamp))  # a coarse file system clock: same mtime
    assert store.list("/p").sessions[0].title == "again"

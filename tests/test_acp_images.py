"""Images in prompts (PROTOCOL.md, `promptCapabilities.image`): they reach the model as images,
are kept in the session's history and replayed; unusable ones get -32602 naming the block."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import acp
import pytest
from acp.schema import ImageContentBlock, UserMessageChunk
from fake_anthropic import FakeAnthropic, message, text
from harness import serve_agent

PNG = bytes.fromhex(  # a 1x1 PNG
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082"
)
DATA = base64.b64encode(PNG).decode()
MARKER = f"[image: image/png, {len(PNG)} bytes]"  # what the scripted model sees of it


def png_header(width: int, height: int) -> str:
    """The base64 of a PNG's signature and IHDR chunk: what says its size (no pixels)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk).decode()


def seen(reply: str) -> dict:
    return {"match": MARKER, "blocks": [{"type": "text", "text": reply}]}


async def test_an_image_reaches_the_model_and_is_replayed_on_load(tmp_path):
    async with serve_agent(tmp_path / "proj", script=[seen("a diagram of two subnets")]) as agent:
        sid = await agent.new_session()
        result = await agent.conn.prompt(session_id=sid, prompt=[acp.text_block("what is this?"), acp.image_block(DATA, "image/png", uri="file:///p/net.png")])
        assert result.stop_reason == "end_turn" and agent.text(sid) == "a diagram of two subnets"
        await agent.conn.close_session(session_id=sid)
        agent.client.updates[sid].clear()
        await agent.conn.load_session(cwd=str(agent.workdir), session_id=sid, mcp_servers=[])
        images = [u.content for u in agent.updates(sid, UserMessageChunk) if isinstance(u.content, ImageContentBlock)]
        assert [(i.data, i.mime_type, i.uri) for i in images] == [(DATA, "image/png", "file:///p/net.png")]
    records = [json.loads(line) for line in (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text().splitlines()]
    stored = [b for r in records for b in r["message"]["content"] if b["type"] == "image"]
    assert stored == [{"type": "image", "media_type": "image/png", "data": DATA, "name": "file:///p/net.png"}]


async def test_an_image_file_inside_the_project_is_read_by_uri(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "net.png").write_bytes(PNG)
    async with serve_agent(project, script=[seen("read from the file")]) as agent:
        sid = await agent.new_session()
        block = ImageContentBlock(type="image", data="", mime_type="image/png", uri=(project / "net.png").as_uri())
        result = await agent.conn.prompt(session_id=sid, prompt=[acp.text_block("look"), block])
        assert result.stop_reason == "end_turn" and agent.text(sid) == "read from the file"


UNUSABLE = [  # (block, what the error says); one agent plays them all (a spawn each was slow)
    (acp.image_block("not base64!", "image/png"), "not valid base64"),
    (acp.image_block(base64.b64encode(b"hello").decode(), "image/png"), "is not image/png"),
    (acp.image_block(DATA, "image/tiff"), "is not one of"),
    # What the Messages API refuses, in every later request of the session: wider or taller than
    # 8000 px, a size it cannot read, more than 5 MB of base64 (3.75 MiB decoded).
    (acp.image_block(png_header(9000, 20), "image/png"), "is 9000x20 pixels; the model takes at most 8000 on a side"),
    (acp.image_block(base64.b64encode(PNG[:20]).decode(), "image/png"), "size cannot be read"),
    (acp.image_block(base64.b64encode(PNG + b"\0" * (3 * 2**20 + 800_000)).decode(), "image/png"), "larger than 3.75 MiB"),
    (ImageContentBlock(type="image", data="", mime_type="image/png", uri="file:///etc/passwd"), "outside the session's directory"),
    (ImageContentBlock(type="image", data="", mime_type="image/png"), "needs `data`"),
]


async def test_an_unusable_image_gets_a_clear_error_and_the_session_goes_on(tmp_path):
    async with serve_agent(tmp_path / "proj", script=[{"blocks": [{"type": "text", "text": "fine"}]}]) as agent:
        sid = await agent.new_session()
        for block, why in UNUSABLE:
            with pytest.raises(acp.RequestError) as caught:
                await agent.conn.prompt(session_id=sid, prompt=[acp.text_block("look"), block])
            assert caught.value.code == -32602
            assert why in caught.value.data["prompt[1]"]
        assert (await agent.prompt(sid, "and now?")).stop_reason == "end_turn"


async def test_claude_gets_the_image_as_a_base64_image_block(tmp_path):
    with FakeAnthropic() as fake:
        fake.add(message(text("Two subnets.")), message(text("Still two.")))
        env = {"IAC_CODE_MODEL": "claude-sonnet-4-6", "ANTHROPIC_API_KEY": "sk-test-images", "ANTHROPIC_BASE_URL": fake.url}
        async with serve_agent(tmp_path / "proj", env=env) as agent:
            sid = await agent.new_session()
            await agent.conn.prompt(session_id=sid, prompt=[acp.text_block("what is this?"), acp.image_block(DATA, "image/png")])
            await agent.prompt(sid, "sure?")
        first, second = fake.bodies[0], fake.bodies[1]
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": DATA}}

    def images(body: dict) -> list[dict]:  # the first user message's images, without the cache breakpoint
        content = body["messages"][0]["content"]
        return [{k: v for k, v in b.items() if k != "cache_control"} for b in content if b["type"] == "image"]

    assert first["messages"][0]["content"][0] == {"type": "text", "text": "what is this?"}
    assert images(first) == [image]
    assert images(second) == [image]  # kept in the history for the next request


async def test_claude_gets_the_newest_twenty_images_and_the_session_keeps_all(tmp_path):
    """Past 20 images a request would be refused for any image over 2,000 px (past 100, whatever
    their size), and the refusal would repeat in every later turn: the oldest go as markers."""
    blocks = [acp.image_block(DATA, "image/png", uri=f"file:///p/shot{n}.png") for n in range(22)]
    with FakeAnthropic() as fake:
        fake.add(message(text("Many shots.")))
        env = {"IAC_CODE_MODEL": "claude-sonnet-4-6", "ANTHROPIC_API_KEY": "sk-test-images", "ANTHROPIC_BASE_URL": fake.url}
        async with serve_agent(tmp_path / "proj", env=env) as agent:
            sid = await agent.new_session()
            result = await agent.conn.prompt(session_id=sid, prompt=[acp.text_block("compare"), *blocks])
            assert result.stop_reason == "end_turn"
        content = fake.bodies[0]["messages"][0]["content"]
    kinds = [b["type"] for b in content]
    assert kinds == ["text", "text", "text"] + ["image"] * 20
    assert "[image file:///p/shot0.png: left out of this request" in content[1]["text"]
    assert "file:///p/shot1.png" in content[2]["text"]
    records = [json.loads(line) for line in (agent.config_dir / "sessions" / f"{sid}.jsonl").read_text().splitlines()]
    stored = [b["name"] for r in records for b in r["message"]["content"] if b["type"] == "image"]
    assert stored == [f"file:///p/shot{n}.png" for n in range(22)]

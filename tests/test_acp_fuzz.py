"""A seeded fuzz of the wire: hostile lines of every shape, each answered with the right code.

About 1,500 lines (non-objects, wrong `jsonrpc`, bad ids, unknown methods, wrong parameter types,
huge and non-finite numbers, deep nesting, invalid UTF-8, partial lines, over-long lines, random
bytes) go to one real `iac-code acp`; every line that needs an answer gets exactly the code
PROTOCOL.md's Errors table names, nothing else is answered, and the server serves a normal request
afterwards. The seed makes every run the same; the work is bounded by the line count.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import Counter
from typing import Any

from harness import spawn_raw

SEED = 20261201
LIMIT = 64 * 1024
ROUNDS = 60  # lines per round: 25; every round ends by reading all the answers it expects

PARSE, INVALID_REQUEST, NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602


class Case:
    """One line and what it must get: `code` with `reply_id` (None: a null id), or no reply (code None)."""

    def __init__(self, line: bytes, code: int | None, reply_id: Any = None) -> None:
        self.line, self.code, self.reply_id = line, code, reply_id


def _dump(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


class Fuzzer:
    def __init__(self, seed: int, cwd: str) -> None:
        self.rng = random.Random(seed)
        self.cwd = cwd
        self.next_id = 0

    def new_id(self) -> str:
        self.next_id += 1
        return f"fz-{self.next_id}"

    def request(self, method: str, params: Any, **extra: Any) -> tuple[str, dict]:
        rid = self.new_id()
        return rid, {"jsonrpc": "2.0", "id": rid, "method": method, "params": params, **extra}

    # one generator per shape
    def non_object(self) -> Case:
        value = self.rng.choice([None, True, False, 0, -7, 3.25, "x", "", [], [1, {"a": 2}], [{"jsonrpc": "2.0"}]])
        return Case(_dump(value), INVALID_REQUEST)

    def wrong_jsonrpc(self) -> Case:
        rid, message = self.request("session/list", {})
        choice = self.rng.choice(["1.0", 2.0, 2, None, "2.0 ", "missing"])
        if choice == "missing":
            del message["jsonrpc"]
        else:
            message["jsonrpc"] = choice
        return Case(_dump(message), INVALID_REQUEST, rid)

    def bad_id(self) -> Case:
        _, message = self.request("session/list", {})
        message["id"] = self.rng.choice([True, False, 1.5, -0.5, [], [1], {}, {"id": 1}])
        return Case(_dump(message), INVALID_REQUEST)

    def unknown_method(self) -> Case:
        name = self.rng.choice(["session/frob", "sessions/nope", "x", "", "initialise", "session/prompt/", "_iac/x", "fs/read_text_file"])
        rid, message = self.request(name, {"n": self.rng.randint(0, 9)})
        return Case(_dump(message), NOT_FOUND, rid)

    def unknown_notification(self) -> Case:
        message = {"jsonrpc": "2.0", "method": self.rng.choice(["session/frobbed", "x/y", "notify"]), "params": {}}
        return Case(_dump(message), None)

    def stray_response(self) -> Case:
        message = {"jsonrpc": "2.0", "id": 10_000 + self.rng.randint(0, 999), "result": {"outcome": "selected"}}
        return Case(_dump(message), None)

    def bad_response(self) -> Case:
        message = {"jsonrpc": "2.0", "id": self.rng.randint(0, 5), "error": self.rng.choice(["boom", 7, None, {"code": "x"}])}
        return Case(_dump(message), INVALID_REQUEST)

    def wrong_params(self) -> Case:
        method, params = self.rng.choice([
            ("session/new", {"cwd": 123, "mcpServers": []}),
            ("session/new", {"cwd": "relative/dir", "mcpServers": []}),
            ("session/new", {"mcpServers": "none"}),
            ("session/load", {"sessionId": [], "cwd": self.cwd, "mcpServers": []}),
            ("session/load", {"sessionId": "no-such-session", "cwd": self.cwd, "mcpServers": []}),
            ("session/prompt", {"sessionId": 5, "prompt": "text"}),
            ("session/prompt", {"sessionId": "no-such-session", "prompt": [{"type": "text", "text": "x"}]}),
            ("session/set_mode", {"sessionId": "no-such-session", "modeId": "plan"}),
            ("session/list", {"cwd": 42}),
            ("session/list", {"cursor": "not-a-cursor"}),
            ("session/list", [1, 2]),
            ("session/set_config_option", {"sessionId": "no-such-session", "configId": "mode", "value": "plan"}),
        ])  # fmt: skip
        rid, message = self.request(method, params)
        return Case(_dump(message), INVALID_PARAMS, rid)

    def huge_number(self) -> Case:
        literal = self.rng.choice(["1e400", "-1e999", "Infinity", "-Infinity", "NaN"])
        rid = self.new_id()
        line = b'{"jsonrpc":"2.0","id":"%s","method":"session/list","params":{"cwd":%s}}' % (rid.encode(), literal.encode())
        return Case(line, INVALID_PARAMS, rid)

    def long_integer(self) -> Case:
        digits = "9" * self.rng.randint(5000, 9000)  # over Python's 4300-digit limit for int()
        return Case(b'{"jsonrpc":"2.0","id":%s,"method":"session/list"}' % digits.encode(), PARSE)

    def deep_nesting(self) -> Case:
        opener = self.rng.choice([b"[", b'{"a":'])
        depth = self.rng.randint(5_000, (LIMIT - 1) // len(opener))  # deeper than any parser allows, under the limit
        return Case(opener * depth, PARSE)

    def invalid_utf8(self) -> Case:
        junk = bytes(self.rng.choice([0xFF, 0xFE, 0xC3, 0x80, 0xED]) for _ in range(self.rng.randint(1, 6)))
        line = b'{"jsonrpc":"2.0","id":1,"method":"session/list","params":{"cwd":"/' + junk + b'"}}'
        return Case(line, PARSE)

    def partial(self) -> Case:
        _, message = self.request("session/list", {"cwd": self.cwd})
        full = _dump(message)
        return Case(full[: self.rng.randint(1, len(full) - 1)], PARSE)

    def over_long(self) -> Case:
        rid, message = self.request("session/list", {"cwd": "/" + "z" * (LIMIT + self.rng.randint(1, 3 * LIMIT))})
        return Case(_dump(message), INVALID_REQUEST)  # discarded unread: its id is not known

    def random_bytes(self) -> Case:
        line = bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 80))).replace(b"\n", b" ")
        if not line.strip():
            return Case(b"x", PARSE)
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return Case(line, PARSE)
        assert not isinstance(value, dict)
        return Case(line, INVALID_REQUEST)  # JSON by chance (`7`, `"a"`), never an object: it needs `{` and `}`

    def valid(self) -> Case:
        rid, message = self.request("session/list", {"cwd": self.cwd})
        return Case(_dump(message), 0, rid)

    def case(self) -> Case:
        shapes = [
            self.non_object, self.wrong_jsonrpc, self.bad_id, self.unknown_method, self.unknown_notification,
            self.stray_response, self.bad_response, self.wrong_params, self.huge_number, self.long_integer,
            self.deep_nesting, self.invalid_utf8, self.partial, self.over_long, self.random_bytes, self.valid,
        ]  # fmt: skip
        return self.rng.choice(shapes)()


async def test_a_thousand_hostile_lines_get_the_right_codes_and_the_server_lives(tmp_path):
    project = tmp_path / "proj"
    fuzzer = Fuzzer(SEED, str(project))
    sent = Counter()
    async with spawn_raw(project, env={"IAC_CODE_MAX_MESSAGE_BYTES": str(LIMIT)}) as agent:
        await agent.initialize()
        for _ in range(ROUNDS):
            cases = [fuzzer.case() for _ in range(25)]
            by_id: dict[Any, Case] = {}
            null_codes: Counter[int] = Counter()
            for case in cases:
                sent[case.code] += 1
                if case.code is None:
                    pass
                elif case.reply_id is not None:
                    by_id[case.reply_id] = case
                else:
                    null_codes[case.code] += 1
                await agent.send_line(case.line)
            got_null: Counter[int] = Counter()
            while by_id or got_null != null_codes:
                message = await agent.read(timeout=30)
                assert "method" not in message, message  # nothing here starts a notification or request
                if message["id"] is None:
                    got_null[message["error"]["code"]] += 1
                    assert got_null[message["error"]["code"]] <= null_codes[message["error"]["code"]], (message, null_codes)
                    continue
                case = by_id.pop(message["id"])
                if case.code == 0:
                    assert "result" in message, message
                else:
                    assert message["error"]["code"] == case.code, (case.line[:200], message)
                    assert "Traceback" not in json.dumps(message)
        assert sum(sent.values()) >= 1000
        assert all(sent[code] > 0 for code in (PARSE, INVALID_REQUEST, NOT_FOUND, INVALID_PARAMS, None))
        # alive and well: a session can still be created and used
        reply = await agent.request("session/new", {"cwd": str(project), "mcpServers": []})
        assert "sessionId" in reply["result"]
        assert agent.proc.returncode is None
        assert "Traceback" not in agent.stderr()
        # a last line without its newline at the end of input is still answered, then the server ends
        assert agent.proc.stdin is not None
        agent.proc.stdin.write(b'{"jsonrpc":"2.0","id":"last","method":"session/li')
        agent.proc.stdin.close()
        reply = await agent.response(None)  # past the new session's notifications
        assert reply["error"]["code"] == PARSE
        assert await asyncio.wait_for(agent.proc.wait(), 20) == 0

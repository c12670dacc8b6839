"""The tool protocol: what every agent tool declares and how it runs.

A tool is a class with a pydantic input model (the JSON schema sent to the model is derived from
it), a description written for the model, an ACP tool kind, a permission category and a
human-readable title. `run` returns a `ToolResult`; errors the model can act on are results with
`is_error=True`, never exceptions. `preview` (optional) computes what the client should see
before the call is approved (a diff), or an error that makes asking pointless.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from iac_code.core.events import (
    DiffContent,
    EventSink,
    Location,
    TextContent,
    ToolContent,
    ToolKind,
)
from iac_code.redact import Redactor
from iac_code.tools.client_interfaces import ClientFiles, ClientTerminals
from iac_code.tools.files import printable, resolve_arg
from iac_code.tools.paths import multi_linked
from iac_code.tools.sandbox import Sandbox

Category = Literal["read", "write", "execute"]
"""Permission category (PROTOCOL.md, Permissions): read-only, write, execute."""


class ToolInput(BaseModel):
    """Base of tool input models: unknown fields are rejected so typos reach the model as errors."""

    model_config = ConfigDict(extra="forbid")


@dataclass(slots=True)
class ToolResult:
    """What a tool call produced.

    `output` is the text the model receives as the `tool_result`, made valid Unicode (names
    decoded with `surrogateescape` show U+FFFD; see `files.printable`). `raw_output` is the JSON
    value sent to the client as `rawOutput` (defaults to `{"output": output}`); `content` is what
    the client's tool panel shows (defaults to `output` as text); `locations` are the files touched.
    """

    output: str
    is_error: bool = False
    raw_output: Any = None
    content: list[ToolContent] | None = None
    locations: list[Location] | None = None

    def __post_init__(self) -> None:
        self.output = printable(self.output)

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """A failed call whose `message` tells the model what went wrong and what to do."""
        return cls(output=message, is_error=True)

    def client_content(self) -> list[ToolContent]:
        """The content to show the client (explicit `content`, else the output as text)."""
        if self.content is not None:
            return self.content
        return [TextContent(self.output)] if self.output else []

    def client_raw_output(self) -> Any:
        """The `rawOutput` value for the client."""
        if self.raw_output is not None:
            return self.raw_output
        return {"error": self.output} if self.is_error else {"output": self.output}

    def redacted(self, redact: Redactor) -> ToolResult:
        """This result with every secret value replaced by `[REDACTED]`, in what the model, the
        client and the history receive (output, rawOutput, content); itself if there are none."""
        if not redact:
            return self
        content = None
        if self.content is not None:
            content = [_redact_content(c, redact) for c in self.content]
        return ToolResult(
            output=redact(self.output),
            is_error=self.is_error,
            raw_output=redact.value(self.raw_output),
            content=content,
            locations=self.locations,
        )


def _redact_content(item: ToolContent, redact: Redactor) -> ToolContent:
    if isinstance(item, TextContent):
        return TextContent(redact(item.text))
    if isinstance(item, DiffContent):
        old = None if item.old_text is None else redact(item.old_text)
        return DiffContent(item.path, redact(item.new_text), old)
    return item


@dataclass(slots=True)
class ToolReplay:
    """A replayed call (`Tool.replay`): its panel `content` (None: the result text) and the
    `events` it published while it ran (the plan), sent before its final update."""

    content: list[ToolContent] | None = None
    events: list[Any] = field(default_factory=list)


@dataclass(slots=True)
class ToolPreview:
    """What the client sees while a call awaits approval; `error` set means: fail without asking."""

    content: list[ToolContent] = field(default_factory=list)
    locations: list[Location] = field(default_factory=list)
    error: str | None = None


ProgressSink = Callable[[list[ToolContent]], Awaitable[None]]
"""Replaces the content of the running tool call's panel (e.g. live output, sub-agent progress)."""

SubagentRunner = Callable[[str, ProgressSink], Awaitable[str]]
"""Runs a sub-agent on a prompt with read-only tools, reporting progress; returns its final answer."""


@dataclass(slots=True)
class ToolContext:
    """What a running tool may use; one context per tool call, complete when it is made (by the
    session's `ToolContextFactory`, before the permission gate sees the call).

    `cwd` is the session's working directory with symlinks resolved; `config_dir` is the agent's
    own directory (sensitive). `progress` updates the tool call's panel while it runs;
    `run_subagent` runs the `agent` tool's sub-agent; `emit` sends agent events other than the
    call's own (the plan tool publishes the plan with it). `secrets` redacts the agent's credentials
    (commands run without them; results are redacted by the caller of `run`). `files` and
    `terminals` are the client's, when it offers them (see `tools.client_interfaces`). `sandbox` is how the
    session's commands are sandboxed (None: no sandbox works here, or it is turned off).

    Cancellation arrives as `asyncio.CancelledError` in `run`: a tool must release what it
    started (kill processes) and re-raise; a tool that has output worth keeping (bash) sets
    `partial` first, and the caller reports it as the call's final content.
    """

    cwd: Path
    config_dir: Path
    allow_private_fetch: bool = False
    progress: ProgressSink | None = None
    run_subagent: SubagentRunner | None = None
    emit: EventSink | None = None
    secrets: Redactor = field(default_factory=Redactor)
    files: ClientFiles | None = None
    terminals: ClientTerminals | None = None
    sandbox: Sandbox | None = None
    partial: ToolResult | None = None
    _resolved: dict[str, Path] = field(default_factory=dict)
    _linked: dict[Path, bool] = field(default_factory=dict)

    def resolve(self, path: str | None) -> Path:
        """The real absolute path of a tool's path argument (None or "" means `cwd`), resolved
        once per call: `paths()` (what permissions check and approve) and `run()` (what the tool
        opens) get the very same path, even if a link on the way changes in between.

        A name missing as typed is looked up in the other Unicode normal form (NFC/NFD).
        """
        key = path or "."
        found = self._resolved.get(key)
        if found is None:
            found = self._resolved[key] = resolve_arg(self.cwd, key)
        return found

    def multi_linked(self, path: Path) -> bool:
        """Whether the resolved `path` was a regular file with more than one hard link when this
        call first asked (`paths.multi_linked`), so permissions treated it as outside the project
        (PROTOCOL.md, Permissions). The answer is kept for the call: a file tool passes it to
        `nofollow.ParentDir`, which refuses a file that has gained a link since the check."""
        found = self._linked.get(path)
        if found is None:
            found = self._linked[path] = multi_linked(path)
        return found

    async def report(self, content: list[ToolContent]) -> None:
        """Send progress content (secrets redacted) if anyone listens."""
        if self.progress is not None:
            await self.progress([_redact_content(c, self.secrets) for c in content] if self.secrets else content)


class ToolContextFactory(Protocol):
    """Makes the context of one tool call: the session's parts (`Session.tool_context`) with the
    call's own `progress`, `emit` and `run_subagent` (None: the call has none)."""

    def __call__(
        self, *, progress: ProgressSink | None = None, emit: EventSink | None = None, run_subagent: SubagentRunner | None = None
    ) -> ToolContext: ...


InputT = TypeVar("InputT", bound=ToolInput)
"""A tool's input model."""


class Tool(Generic[InputT]):
    """Base class of the agent's tools, generic in the input model: `class GlobTool(Tool[GlobInput])`.

    Subclasses set the attributes below (as class attributes, or per instance for tools known only
    at run time, such as an MCP server's) and `run`; the other methods receive the validated input
    as `input_model`, the class `InputT`.
    """

    name: str
    description: str
    input_model: type[InputT]
    kind: ToolKind
    category: Category

    def title(self, params: InputT | None) -> str:
        """A short human title for the client: "Read main.tf", "Run `terraform fmt`".

        `params` is None while the input is still streaming.
        """
        return self.name

    def paths(self, params: InputT, ctx: ToolContext) -> list[Path]:
        """The absolute paths (symlinks resolved) this call reads or writes; used by permissions."""
        return []

    def locations(self, params: InputT, ctx: ToolContext) -> list[Location]:
        """Files to show as the call's locations (default: `paths`)."""
        return [Location(str(p)) for p in self.paths(params, ctx)]

    async def preview(self, params: InputT, ctx: ToolContext) -> ToolPreview | None:
        """Content to show before the call runs (a diff for edits), or None."""
        return None

    async def run(self, params: InputT, ctx: ToolContext) -> ToolResult:
        """Run the call. Errors are returned as `ToolResult.error`, not raised."""
        raise NotImplementedError

    def replay(self, params: InputT, ctx: ToolContext, output: str) -> ToolReplay | None:
        """How a successful call is redrawn when its session is loaded: what it showed live,
        rebuilt from the stored input and `output` (the result text the model got), without
        touching files. None (the default): the result text."""
        return None

    # ----- helpers shared by every tool -----

    def parse(self, raw: dict[str, Any]) -> InputT | str:
        """Validate raw model input; returns the input model or an error message for the model."""
        try:
            return self.input_model.model_validate(raw)
        except ValidationError as exc:
            problems = []
            for err in exc.errors():
                where = ".".join(str(p) for p in err["loc"]) or "input"
                problems.append(f"{where}: {err['msg']}")
            return f"Invalid input for {self.name}: " + "; ".join(problems)

    def input_schema(self) -> dict[str, Any]:
        """The JSON schema of the input, as sent to the model."""
        schema = self.input_model.model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
        return schema

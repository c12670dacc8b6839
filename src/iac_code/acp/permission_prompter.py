"""Asking the client for permission: `session/request_permission` (PROTOCOL.md, Permissions)."""

from __future__ import annotations

import logging

from acp import Client, RequestError
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate
from pydantic import ValidationError

from iac_code.acp.updates import content_items, location_items
from iac_code.agent.permissions import Answer, PermissionRequest
from iac_code.core.vocabulary import is_permission_option_kind

log = logging.getLogger(__name__)


class AcpPrompter:
    """A `PermissionPrompter` that asks the ACP client of one session."""

    def __init__(self, conn: Client, session_id: str) -> None:
        self._conn = conn
        self._session_id = session_id

    async def ask(self, request: PermissionRequest) -> Answer:
        """Send the request with the gate's options and return the chosen option's kind (never its
        position), or `cancelled`. An option id that is no kind is a `reject_once`."""
        tool_call = ToolCallUpdate(
            tool_call_id=request.tool_call_id,
            title=request.title,
            kind=request.kind,
            status="pending",
            raw_input=request.raw_input,
            content=content_items(request.content) or None,
            locations=location_items(request.locations) or None,
        )
        try:
            response = await self._conn.request_permission(
                session_id=self._session_id,
                tool_call=tool_call,
                options=[PermissionOption(option_id=o.kind, name=o.name, kind=o.kind) for o in request.options],
            )
        except (RequestError, ValidationError) as exc:
            # The client answered, but with an error or a malformed result: nobody approved the
            # call, so it does not run. Raised on, the client's error would become the prompt's.
            log.warning("permission request failed (%s); treating it as reject_once", exc)
            return "reject_once"
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return "cancelled"
        kind = outcome.option_id  # option ids are the option kinds: the gate decides which are offered
        if not is_permission_option_kind(kind):
            log.warning("client chose unknown permission option %r; treating it as reject_once", outcome.option_id)
            return "reject_once"
        return kind

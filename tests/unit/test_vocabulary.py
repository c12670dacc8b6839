"""Each small vocabulary is written once (`iac_code.core.vocabulary`) and every place that offers
or checks its words takes them from there."""

from __future__ import annotations

from typing import get_args

import acp.schema

from iac_code.cli import build_parser
from iac_code.config import MODES, THOUGHT_LEVEL_NAMES
from iac_code.core import vocabulary as v
from iac_code.tools.validate import ValidateInput


def test_the_modes_offered_are_the_permission_modes_in_order() -> None:
    assert tuple(m.id for m in MODES) == v.PERMISSION_MODES


def test_every_thought_level_has_a_name() -> None:
    assert tuple(THOUGHT_LEVEL_NAMES) == v.THOUGHT_LEVELS


def test_the_permission_option_kinds_are_the_protocols() -> None:
    assert v.PERMISSION_OPTION_KINDS == get_args(acp.schema.PermissionOptionKind)


def test_the_command_line_offers_the_vocabularies() -> None:
    parser = build_parser()
    choices = {a.dest: tuple(a.choices) for a in parser._actions if a.choices and not isinstance(a.choices, dict)}
    assert choices["output_format"] == v.OUTPUT_FORMATS
    assert choices["permission_mode"] == v.PERMISSION_MODES
    validate = parser._subparsers._group_actions[0].choices["validate"]  # type: ignore[union-attr]
    sub = {a.dest: tuple(a.choices) for a in validate._actions if a.choices}
    assert sub == {"format": v.VALIDATE_FORMATS, "kind": v.VALIDATE_KINDS}


def test_the_validate_tool_offers_the_validate_kinds() -> None:
    assert tuple(ValidateInput.model_json_schema()["properties"]["kind"]["enum"]) == v.VALIDATE_KINDS


def test_the_guards_accept_the_words_and_nothing_else() -> None:
    assert all(v.is_permission_mode(m) for m in v.PERMISSION_MODES) and not v.is_permission_mode("Default")
    assert all(v.is_thought_level(t) for t in v.THOUGHT_LEVELS) and not v.is_thought_level("max")
    assert all(v.is_permission_option_kind(k) for k in v.PERMISSION_OPTION_KINDS) and not v.is_permission_option_kind("cancelled")

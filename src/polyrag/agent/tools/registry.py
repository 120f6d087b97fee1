"""Tools as typed functions: their signature is the argument schema, their docstring the
description. Calls are validated against the schema and every failure becomes an outcome with
its error (never an exception), so the agent can retry with the error or set the tool aside.
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, get_type_hints

from pydantic import BaseModel, ValidationError, create_model

from polyrag.agent.tools import builtin
from polyrag.agent.tools.base import ToolContext, ToolOutcome, first_paragraph
from polyrag.errors import ConfigError, PolyragError

CONTEXT = "context"  # the keyword a built-in tool takes the question's evidence by


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    arguments: type[BaseModel]  # validates a call's arguments
    function: Callable[..., Any]
    takes_context: bool

    def schema(self) -> dict[str, Any]:
        return self.arguments.model_json_schema()

    def signature(self) -> str:
        """One line for a prompt: name(argument: type, ...) — description."""
        fields = self.schema().get("properties", {})
        params = ", ".join(f"{name}: {_type_name(spec)}" for name, spec in fields.items())
        return f"{self.name}({params}) — {self.description}"


def tool(function: Callable[..., Any]) -> Tool:
    """A Tool from a typed function; a keyword-only `context` parameter is filled by the agent."""
    hints = get_type_hints(function)
    fields: dict[str, Any] = {}
    takes_context = False
    for name, parameter in inspect.signature(function).parameters.items():
        if name == CONTEXT:
            takes_context = True
            continue
        if name not in hints:
            raise ConfigError(f"tool {function.__name__}: parameter {name!r} has no type")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[name] = (hints[name], default)
    description = first_paragraph(function.__doc__)
    if not description:
        raise ConfigError(f"tool {function.__name__}: a docstring must say what it does")
    model = create_model(f"{function.__name__}_arguments", **fields)
    return Tool(function.__name__, description, model, function, takes_context)


def builtin_tools() -> list[Tool]:
    return [
        tool(f)
        for f in (builtin.sql, builtin.calculator, builtin.date_difference, builtin.read_page)
    ]


def load_user_tools(references: Sequence[str]) -> list[Tool]:
    """Tools named 'package.module:function' in the settings (agent.user_tools)."""
    out = []
    for reference in references:
        module_name, _, attribute = reference.partition(":")
        try:
            function = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError, ValueError) as error:
            raise ConfigError(f"agent.user_tools: cannot load {reference!r}: {error}") from None
        out.append(tool(function))
    return out


class Toolbox:
    def __init__(self, tools: Sequence[Tool]) -> None:
        self.tools = {t.name: t for t in tools}

    def names(self) -> list[str]:
        return list(self.tools)

    def describe(self, names: Sequence[str] | None = None) -> str:
        chosen = [self.tools[n] for n in (names or self.tools) if n in self.tools]
        return "\n".join(f"- {t.signature()}" for t in chosen)

    def call(self, name: str, arguments: dict[str, Any], context: ToolContext) -> ToolOutcome:
        started = time.perf_counter()
        found = self.tools.get(name)
        if found is None:
            return _failed(name, arguments, f"no tool called {name!r}", started)
        try:
            checked = found.arguments.model_validate(arguments)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(p) for p in problem["loc"]) or "arguments"
            return _failed(name, arguments, f"{where}: {problem['msg']}", started)
        values = checked.model_dump()
        try:
            if found.takes_context:
                result = found.function(**values, context=context)
            else:
                result = found.function(**values)
        except PolyragError as error:
            return _failed(name, values, str(error), started)
        except Exception as error:  # a user's tool may raise anything: it is reported, not fatal
            return _failed(name, values, f"{type(error).__name__}: {error}", started)
        elapsed = (time.perf_counter() - started) * 1000
        if isinstance(result, ToolOutcome):
            return _with_time(result, elapsed)
        return ToolOutcome(name, values, True, str(result), elapsed_ms=elapsed)


def _failed(name: str, arguments: dict[str, Any], error: str, started: float) -> ToolOutcome:
    elapsed = (time.perf_counter() - started) * 1000
    return ToolOutcome(
        name, arguments, False, error=" ".join(error.split())[:300], elapsed_ms=elapsed
    )


def _with_time(outcome: ToolOutcome, elapsed: float) -> ToolOutcome:
    from dataclasses import replace

    return replace(outcome, elapsed_ms=elapsed)


def _type_name(spec: dict[str, Any]) -> str:
    if "enum" in spec:
        return "|".join(str(v) for v in spec["enum"])
    return str(spec.get("type", "value"))

"""The ``MLENS_`` variable of every setting: the names, the source that reads them, the errors.

``variables(Settings)`` maps each variable (``MLENS_LLM_BASE_URL``) to the path of its
setting (``("llm", "base_url")``), by the rule of ``toolkit.config.sections``. The
``FlatVariables`` source wraps pydantic-settings' environment and ``.env`` sources: it
takes the flat names out of what they read and hands them back nested, so the nested
form (``MLENS_LLM__BASE_URL``) keeps working beside them and the flat name wins when both
are set. ``config_error`` turns a validation failure into one line naming the variable.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource
from pydantic_settings.sources import EnvSettingsSource

from toolkit.config.sections import Section
from toolkit.errors import ConfigError, quoted

PREFIX = "MLENS_"

SettingPath = tuple[str, ...]
"""Where a setting lives in ``Settings``: ``("llm", "base_url")``."""


def _model(field: FieldInfo) -> type[BaseModel] | None:
    annotation = field.annotation
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _leaves(settings_cls: type[BaseModel]) -> Iterator[tuple[str, SettingPath, FieldInfo]]:
    """(variable, path, field) of every setting, in declaration order."""
    for name, field in settings_cls.model_fields.items():
        section = _model(field)
        if section is None or not issubclass(section, Section):
            yield PREFIX + name.upper(), (name,), field
            continue
        for sub, subfield in section.model_fields.items():
            variable = section.env_names.get(sub, PREFIX + section.env_prefix + sub.upper())
            inner = _model(subfield)
            if inner is None:
                yield variable, (name, sub), subfield
                continue
            for leaf, leaf_field in inner.model_fields.items():
                yield variable + leaf.upper(), (name, sub, leaf), leaf_field


def variables(settings_cls: type[BaseModel]) -> dict[str, SettingPath]:
    """Every ``MLENS_`` variable of ``settings_cls`` and the path of the setting it sets."""
    return {variable: path for variable, path, _ in _leaves(settings_cls)}


def fields(settings_cls: type[BaseModel]) -> dict[str, FieldInfo]:
    """Every ``MLENS_`` variable of ``settings_cls`` and its field (default, description)."""
    return {variable: field for variable, _, field in _leaves(settings_cls)}


def put(tree: dict[str, Any], path: SettingPath, value: Any) -> None:
    """Set ``value`` at ``path`` of the nested dict ``tree``, making the dicts on the way."""
    for key in path[:-1]:
        tree = tree.setdefault(key, {})
    tree[path[-1]] = value


def merge(base: dict[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` with ``top`` laid over it, mappings merged key by key (a copy)."""
    out = dict(base)
    for key, value in top.items():
        below = out.get(key)
        if isinstance(below, dict) and isinstance(value, Mapping):
            out[key] = merge(below, value)
        else:
            out[key] = value
    return out


class FlatVariables(PydanticBaseSettingsSource):
    """An environment (or ``.env``) source that also reads each setting of a section from
    its flat variable (``MLENS_LLM_BASE_URL`` → ``llm.base_url``)."""

    def __init__(self, settings_cls: type[BaseSettings], source: EnvSettingsSource) -> None:
        super().__init__(settings_cls)
        self._source = source

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        """Unused: ``__call__`` reads every field at once (the base class asks for it)."""
        return self._source.get_field_value(field, field_name)

    def __call__(self) -> dict[str, Any]:
        """The values the wrapped source reads, with the flat variables' nested in."""
        source = self._source
        nested = {
            (name if source.case_sensitive else name.lower()): path
            for name, path in variables(self.settings_cls).items()
            if len(path) > 1
        }
        flat: dict[str, Any] = {}
        rest: dict[str, str | None] = {}
        for name, value in source.env_vars.items():
            path = nested.get(name)
            if path is None:
                rest[name] = value
            elif value is not None:
                put(flat, path, value)
        # Taken out first: ``MLENS_DATABASE`` (a path) is no JSON for the section ``database``.
        source.env_vars = rest
        return merge(source(), flat)


def _loc_variable(settings_cls: type[BaseModel], loc: tuple[int | str, ...]) -> str:
    """The variable a validation error's location names (``MLENS_SEARCH__*`` for a group)."""
    path = tuple(str(part) for part in loc)
    names = variables(settings_cls)
    under = [variable for variable, leaf in names.items() if leaf[: len(path)] == path]
    if len(under) == 1 and names[under[0]] == path:
        return under[0]
    if under:
        common = under[0]
        for variable in under[1:]:
            while not variable.startswith(common):
                common = common[:-1]
        return common + "*"
    return PREFIX + "__".join(path).upper()  # the nested form of a name that is no setting


def config_error(settings_cls: type[BaseModel], exc: ValidationError) -> ConfigError:
    """One ``ConfigError`` line for a validation failure of ``settings_cls``:
    ``MLENS_PORT: Input should be a valid integer … (got 'abc')``, failures joined by ``;``.
    Only a text or a number is quoted: a secret is a text that never fails."""
    parts = []
    for error in exc.errors(include_url=False):
        message = error["msg"].removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            message = "no such setting"
        value = error.get("input")
        shown = ""
        if isinstance(value, str):
            shown = f" (got {quoted(value)})"
        elif isinstance(value, int | float):
            shown = f" (got {value!r})"
        parts.append(f"{_loc_variable(settings_cls, error['loc'])}: {message}{shown}")
    return ConfigError("invalid settings: " + "; ".join(parts))

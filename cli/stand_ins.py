"""Stand-ins for modules that a library imports at its top and a help page never uses.

``import_with_stand_ins(target, deferred)`` imports ``target`` with a stand-in in
``sys.modules`` for each module ``deferred`` names (one not imported yet): a module
object whose names are the real module's, looked up when they are first read, and, for
the names ``target`` takes with ``from module import name``, a class that is the real
one when it is called, compared, or read (``stand_in_class``). The stand-in modules are
gone from ``sys.modules`` once ``target`` is loaded, so any later ``import`` gets the
real one; what ``target`` holds of them imports the real module the moment it is used,
and behaves as the real thing from then on. Used wrongly, a stand-in costs time, never a
result: the worst it does is import the real module at once.

One user: ``cli.lean_help``, which loads Typer's help renderer without the Rich modules
it never uses (measured: about 110 ms of CPU of ``mlens --help``). Typer's own imports
that no help page uses (``subprocess``, ``uuid``, ``platform``, ``difflib``,
``traceback``) are imported as they are: deferring them saved about 11 ms, not worth a
stand-in.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterable, Iterator, Mapping
from importlib import import_module
from types import ModuleType
from typing import Any


def real_module(name: str) -> ModuleType:
    """The real module ``name``, imported now if a stand-in was all there was."""
    found = sys.modules.get(name)
    if isinstance(found, StandInModule):
        del sys.modules[name]
    return import_module(name)


class StandInModule(ModuleType):
    """A module whose names are the real module's, read from it on first use."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # the import system's questions about the stand-in
        return getattr(real_module(self.__name__), attr)


class _StandInClass(type):
    """The type of the stand-in classes: each use is the real class's."""

    def real(cls) -> Any:
        """The real class."""
        return getattr(real_module(cls.__module__), cls.__name__)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.real()(*args, **kwargs)

    def __getattr__(cls, attr: str) -> Any:
        return getattr(cls.real(), attr)

    def __eq__(cls, other: object) -> bool:
        return bool(cls.real() == other)

    def __hash__(cls) -> int:
        return hash(cls.real())

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, cls.real())

    def __subclasscheck__(cls, subclass: type) -> bool:
        return issubclass(subclass, cls.real())


def stand_in_class(module: str, name: str) -> type:
    """A class that is ``module``'s ``name`` when it is called, compared or read."""
    return _StandInClass(name, (), {"__module__": module, "__qualname__": name})


class StandInMapping(Mapping[Any, Any]):
    """A stand-in for a module's dict: the real one, read from it on first use."""

    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def real(self) -> Mapping[Any, Any]:
        """The real mapping."""
        found: Mapping[Any, Any] = getattr(real_module(self.module), self.name)
        return found

    def __getitem__(self, key: Any) -> Any:
        return self.real()[key]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.real())

    def __len__(self) -> int:
        return len(self.real())


def stand_in_module(
    module: str, classes: Iterable[str] = (), mappings: Iterable[str] = ()
) -> StandInModule:
    """A stand-in for ``module``, with a stand-in for each of its ``classes`` and
    ``mappings`` (for ``from module import name``)."""
    stand_in = StandInModule(module)
    for name in classes:
        setattr(stand_in, name, stand_in_class(module, name))
    for name in mappings:
        setattr(stand_in, name, StandInMapping(module, name))
    return stand_in


def import_with_stand_ins(target: str, deferred: Mapping[str, Iterable[str]]) -> None:
    """Import ``target`` (once) with a stand-in for each module of ``deferred`` that is
    not imported yet, given a stand-in class for each of the names listed with it, and
    the cyclic garbage collector paused meanwhile."""
    if target in sys.modules:
        return
    stand_ins = {
        module: stand_in_module(module, names)
        for module, names in deferred.items()
        if module not in sys.modules
    }
    sys.modules.update(stand_ins)
    collecting = gc.isenabled()
    gc.disable()  # what an import makes lives on: a collection would scan it for nothing
    try:
        import_module(target)
    finally:
        if collecting:
            gc.enable()
        for module, stand_in in stand_ins.items():
            if sys.modules.get(module) is stand_in:
                del sys.modules[module]

"""Optional dependencies: what an install set lacks, said in one line.

``pip install message-lens`` (``make serve``) installs what serving needs; a feature
whose library is in an extra imports it through ``require``, so a lean install that
reaches it gets a ``ConfigError`` naming the extra to install, never a bare
``ModuleNotFoundError`` (the service answers it as a 503 problem, the CLI in one line).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from toolkit.errors import ConfigError


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import ``module``, or explain which extra installs it.

    Args:
        module: the module to import (``"telethon"``).
        extra: the extra of ``message-lens`` that installs it (``"live"``).
        feature: what needs it, for the message (``"live sync"``).

    Raises:
        ConfigError: the module is not installed.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or module.split(".")[0] != exc.name.split(".")[0]:
            raise  # the module is there but one of its own imports is broken
        raise ConfigError(
            f"{feature} needs {module}, which this install lacks: "
            f"pip install 'message-lens[{extra}]' (or make test, which installs every extra)"
        ) from exc

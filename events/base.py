"""The event base class and the registry of stable type names."""

from __future__ import annotations

from typing import ClassVar

import attrs

from hexlog.events.errors import UnknownEventTypeError

#: CloudEvents ``type`` is the event's type name under this prefix.
TYPE_PREFIX = "hexlog."

_REGISTRY: dict[str, type[Event]] = {}


@attrs.frozen(kw_only=True)
class Event:
    """Something that happened at the table; immutable once recorded."""

    type_name: ClassVar[str]
    schema_version: ClassVar[int] = 1

    @classmethod
    def __attrs_init_subclass__(cls) -> None:
        _register(cls)

    @classmethod
    def cloud_type(cls) -> str:
        """The CloudEvents ``type`` of this event class."""
        return TYPE_PREFIX + cls.type_name


def _register(cls: type[Event]) -> None:
    name = cls.__dict__.get("type_name")
    if name is None:
        msg = f"{cls.__name__} must declare type_name"
        raise TypeError(msg)
    other = _REGISTRY.get(name)
    if other is not None and other.__qualname__ != cls.__qualname__:
        msg = f"type name {name!r} is taken by {other.__name__}"
        raise TypeError(msg)
    _REGISTRY[name] = cls


def event_class(cloud_type: str) -> type[Event]:
    """The class registered for a CloudEvents type such as ``hexlog.dice.rolled``."""
    name = cloud_type.removeprefix(TYPE_PREFIX)
    try:
        return _REGISTRY[name]
    except KeyError:
        msg = f"unknown event type {cloud_type!r}"
        raise UnknownEventTypeError(msg) from None


def registered() -> dict[str, type[Event]]:
    """A copy of the registry: type name to class."""
    return dict(_REGISTRY)

"""Runtime of the generated models and resource groups (``api_models``,
``_ops``): reading answers into models, writing models back as JSON values.

A generated model lists its fields in ``_F`` as ``(attribute, wire name,
type code)``. Type codes: ``s`` str, ``i`` int, ``b`` bool, ``d`` Decimal,
``t`` terminal-local time (naive ``datetime``), ``a`` any JSON, ``[X`` a list
of X, ``{X`` a map of X, anything else the name of a class of
``iikocloud.api_models``.
"""

from __future__ import annotations

import datetime as _dt
import json as _json
import sys
from decimal import Decimal
from typing import (
    Any,
    Callable,
    ClassVar,
    Dict,
    FrozenSet,
    Mapping,
    Optional,
    Tuple,
    Type,
    TypeVar,
    Union,
)

from . import _native

__all__ = ["Model", "OpenEnum"]

_M = TypeVar("_M", bound="Model")

# The service's local-time form, `2025-09-16 19:00:04.512`.
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f"


def _models() -> Any:
    module = sys.modules.get("iikocloud.api_models")
    # While another thread imports the module it is already listed, half
    # made; the import statement waits for it.
    if module is None or getattr(module.__spec__, "_initializing", False):
        from . import api_models as module
    return module


def _parse_time(value: Any) -> Any:
    """A ``t`` value: the core's local time (the one rule of every binding,
    ``iikocloud::webhook::parse_local_time``) as a naive ``datetime``, the
    digits past the microsecond dropped; anything else kept as sent."""
    if isinstance(value, str):
        parsed = _native.local_time_of(value)
        if parsed is not None:
            return parsed
    return value


def _decimal(value: Any) -> Any:
    """A ``d`` value: the core's amount (``iikocloud::Money::from_json``) as
    ``Decimal``, or None for a number or string that is no amount (more than
    28 digits, not a number) and for any other type (``True``, a list), as
    the Rust models read it."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        return _native.amount_of(value)
    if isinstance(value, (Decimal, int)):
        return _native.amount_of(str(value))
    if isinstance(value, float):
        # The shortest text of the double, as the core reads one.
        return _native.amount_of(repr(value))
    return None


def _converter(code: str) -> Callable[[Any], Any]:
    """The function reading a JSON value of type ``code``; ``None`` stays
    ``None`` and a value of an unexpected type is kept as sent (lenient)."""
    if code == "d":
        return _decimal
    if code == "t":
        return _parse_time
    if code in ("s", "i", "b", "a"):
        return _identity
    if code.startswith("["):
        item = _converter(code[1:])

        def read_list(value: Any) -> Any:
            if isinstance(value, list):
                return [None if v is None else item(v) for v in value]
            return value

        return read_list
    if code.startswith("{"):
        item = _converter(code[1:])

        def read_map(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: None if v is None else item(v) for k, v in value.items()}
            return value

        return read_map
    cls = getattr(_models(), code)
    if isinstance(cls, type) and issubclass(cls, OpenEnum):

        def read_enum(value: Any) -> Any:
            return cls(value) if isinstance(value, str) else value

        return read_enum
    if isinstance(cls, type) and issubclass(cls, Model):
        return cls._load
    return _identity


def _identity(value: Any) -> Any:
    return value


def dump(value: Any) -> Any:
    """A model, enum, time or container as plain JSON values (``Decimal``
    stays ``Decimal``, which the native side sends exactly)."""
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, OpenEnum):
        return str(value)
    if isinstance(value, _dt.datetime):
        return value.strftime(_TIME_FORMAT)[:-3]
    if isinstance(value, Mapping):
        return {k: dump(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [dump(v) for v in value]
    return value


#: The slot behind ``Model.extra``: None until there is something in it, so
#: that the thousands of objects of a large answer, which rarely have fields
#: this version does not know, need no dict each. The native reader leaves
#: those fields there as the JSON text of an object (bytes), read into the
#: dict on first use: few callers look, and making them was over a third of
#: reading an event that has many.
_EXTRA = "_Model__extra"


def _set(self: "Model", values: Tuple[Any, ...], extra: Optional[Mapping[str, Any]]) -> None:
    setter = object.__setattr__
    for (attr, _wire, _code), value in zip(type(self)._F, values):
        setter(self, attr, value)
    setter(self, _EXTRA, dict(extra) if extra else None)


class Model:
    """Base of every generated model: immutable, compared by value, read
    leniently with :meth:`from_dict`, written back with :meth:`to_dict`.
    Fields this version does not know are kept in ``extra``."""

    __slots__ = ("__extra",)
    _F: ClassVar[Tuple[Tuple[str, str, str], ...]] = ()
    _readers: ClassVar[Optional[Tuple[Tuple[str, str, Callable[[Any], Any]], ...]]] = None
    _wires: ClassVar[FrozenSet[str]] = frozenset()
    #: ``(discriminator, value)`` of a union variant, written by ``to_dict``.
    _TAG_OF: ClassVar[Optional[Tuple[str, str]]] = None
    #: Attributes holding credentials or tokens, never shown by ``repr``.
    _SECRETS: ClassVar[FrozenSet[str]] = frozenset()
    __extra: Union[None, Dict[str, Any], bytes]

    @property
    def extra(self) -> Dict[str, Any]:
        """Fields of the answer this version does not know, as sent."""
        extra = self.__extra
        if isinstance(extra, bytes):
            # See _EXTRA (written out here, not a call of _extra_read: one
            # Python frame less on each first read).
            extra = _native.read_extra(self)
        if extra is None:
            # Made on first use and kept, so that changes to it last.
            extra = {}
            object.__setattr__(self, _EXTRA, extra)
        return extra

    def _extra_read(self) -> Optional[Dict[str, Any]]:
        """The slot behind ``extra``, read first if the native reader left
        it as text (then kept read)."""
        extra = self.__extra
        if isinstance(extra, bytes):
            return _native.read_extra(self)
        return extra

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use replace()")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @classmethod
    def _compile(cls) -> Tuple[Tuple[str, str, Callable[[Any], Any]], ...]:
        readers = tuple((attr, wire, _converter(code)) for attr, wire, code in cls._F)
        cls._readers = readers
        cls._wires = frozenset(wire for _a, wire, _c in cls._F)
        return readers

    @classmethod
    def _load(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        variants: Optional[Mapping[str, str]] = cls.__dict__.get("_VARIANTS")
        if variants is not None:
            tag = data.get(cls.__dict__["_TAG"])
            # A tag that is not a string (even a list or an object) names no variant.
            name = variants.get(tag) if isinstance(tag, str) else None
            if name is not None:
                return getattr(_models(), name)._load(data)
        readers = cls.__dict__.get("_readers") or cls._compile()
        self = cls.__new__(cls)
        setter = object.__setattr__
        for attr, wire, read in readers:
            value = data.get(wire)
            setter(self, attr, None if value is None else read(value))
        wires = cls._wires
        setter(self, _EXTRA, {k: v for k, v in data.items() if k not in wires} or None)
        return self

    @classmethod
    def from_dict(cls: Type[_M], data: Mapping[str, Any]) -> _M:
        """Reads a JSON object (as parsed with ``parse_float=Decimal``, or
        with plain floats, which are turned into ``Decimal`` by their
        shortest form). Missing and ``null`` fields are ``None``."""
        if not isinstance(data, Mapping):
            raise TypeError(f"{cls.__name__}.from_dict needs a mapping, not {type(data).__name__}")
        loaded = cls._load(data)
        return loaded  # type: ignore[no-any-return]

    def to_dict(self) -> Dict[str, Any]:
        """The JSON object of this model with the service's field names;
        ``None`` fields are left out, ``extra`` is kept."""
        out: Dict[str, Any] = {}
        for attr, wire, _code in type(self)._F:
            value = getattr(self, attr)
            if value is not None:
                out[wire] = dump(value)
        for key, value in (self._extra_read() or {}).items():
            out.setdefault(key, dump(value))
        tag = type(self)._TAG_OF
        if tag is not None and out.get(tag[0]) is None:
            # A union variant names itself, as the service expects.
            out[tag[0]] = tag[1]
        return out

    def replace(self: _M, **changes: Any) -> _M:
        """A copy with some fields changed."""
        values = {attr: getattr(self, attr) for attr, _w, _c in type(self)._F}
        extra = changes.pop("extra", self._extra_read())
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        values.update(changes)
        return type(self)(extra=extra, **values)  # type: ignore[call-arg]

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(
            getattr(self, attr) == getattr(other, attr) for attr, _w, _c in type(self)._F
        ) and (self._extra_read() or {}) == (other._extra_read() or {})

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        secrets = type(self)._SECRETS
        shown = [
            f"{attr}='[redacted]'" if attr in secrets else f"{attr}={getattr(self, attr)!r}"
            for attr, _w, _c in type(self)._F
            if getattr(self, attr) is not None
        ]
        extra = self._extra_read()
        if extra:
            shown.append(f"extra={extra!r}")
        return f"{type(self).__name__}({', '.join(shown)})"

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self.to_dict()))


def _rebuild(cls: Type[Model], data: Dict[str, Any]) -> Model:
    return cls._load(data)  # type: ignore[no-any-return]


class OpenEnum(str):
    """A string enum that keeps values this version does not know: compare
    it with plain strings or the class constants; :attr:`is_known` says
    whether the value is one the document lists."""

    __slots__ = ()
    _VALUES: ClassVar[FrozenSet[str]] = frozenset()

    @property
    def is_known(self) -> bool:
        """Whether the official document lists this value."""
        return str(self) in type(self)._VALUES

    @classmethod
    def values(cls) -> FrozenSet[str]:
        """Every documented value."""
        return cls._VALUES

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str.__repr__(self)})"


class Root:
    """The root of the generated resource groups, mixed into the client."""

    __slots__ = ()

    def _root(self) -> Any:
        return self

    def _call_op(
        self, name: str, fields: Any, response: str, timeout: Any, allow_unknown_fields: bool = False
    ) -> Any:
        raise NotImplementedError


class AsyncRoot(Root):
    """The root of the asyncio resource groups."""

    __slots__ = ()


class Group:
    """A resource group: calls go to the client it was taken from."""

    __slots__ = ("_client",)

    def __init__(self, client: Any) -> None:
        self._client = client

    def _call_op(
        self, name: str, fields: Any, response: str, timeout: Any, allow_unknown_fields: bool
    ) -> Any:
        return self._client._call_op(name, fields, response, timeout, allow_unknown_fields)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"


class AsyncGroup(Group):
    """A resource group of the asyncio client."""

    __slots__ = ()


def load(response: str, data: Any) -> Any:
    """An answer read into the model ``response`` (a class name of
    ``api_models``, ``[Name`` for a list of them; empty for none)."""
    if not response:
        return data
    return _converter(response)(data)


def model_class(name: str) -> Type[Model]:
    """The class of ``api_models`` named ``name``."""
    cls: Type[Model] = getattr(_models(), name)
    return cls


def load_json(response: str, text: Union[str, bytes]) -> Any:
    """An answer's JSON text read into the model ``response`` (empty for
    none) by the native reader (``_native.load_model``), which makes the
    objects :func:`load` makes of ``json.loads(text, parse_float=Decimal)``."""
    if not response:
        return _json.loads(text, parse_float=Decimal)
    return _native.load_model(model_class(response), text)


def _load_text(cls: Type[Model], text: Any, member: Optional[str]) -> Any:
    """The reference reading of JSON text into ``cls``: ``json.loads`` with
    ``parse_float=Decimal``, then :meth:`Model._load`. The native reader hands
    it what it cannot read exactly the same way itself. With ``member``, that
    member of a top-level object (None when either is no object, or the text
    no JSON), as ``webhooks.Event.event_info`` reads ``eventInfo``."""
    if isinstance(text, _native.NativeEvent):
        text = text._raw_json
    elif isinstance(text, memoryview):
        text = text.tobytes()
    if member is None:
        return cls._load(_json.loads(text, parse_float=Decimal))
    try:
        whole = _json.loads(text, parse_float=Decimal)
    except ValueError:
        return None
    value = whole.get(member) if isinstance(whole, dict) else None
    return cls._load(value) if isinstance(value, dict) else None


def body(fields: Tuple[Tuple[str, Any], ...]) -> Dict[str, Any]:
    """The request object of keyword arguments: unset ones left out."""
    return {wire: dump(value) for wire, value in fields if value is not None}

"""Typed results of the client.

Every result is a frozen dataclass with snake_case attributes, a ``repr``
that hides secrets and leaves out empty fields, and ``to_dict()``, which
gives the data back with the service's own camelCase names (ready to be
sent again or stored as JSON). Amounts are :class:`decimal.Decimal`. Fields
this version does not model are kept in ``extra``, as sent.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Tuple, Type, TypeVar

__all__ = [
    "CorrelationIdResponse",
    "DeliveryOrderFilter",
    "ExternalData",
    "Organization",
    "OrganizationStopLists",
    "OrganizationsResponse",
    "ReserveFilter",
    "StopListItem",
    "StopListsResponse",
    "TableOrderFilter",
    "TerminalGroupStopList",
    "UpdatesFilter",
    "WebHooksFilter",
    "WebhookSettings",
]

_M = TypeVar("_M", bound="_Model")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _to_wire(value: Any) -> Any:
    if isinstance(value, _Model):
        return value.to_dict()
    if isinstance(value, list):
        return [_to_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_wire(v) for k, v in value.items()}
    return value


class _Model:
    """Shared behaviour of the result classes (not public)."""

    #: attribute -> (model class, is a list) for nested objects.
    _nested: ClassVar[Dict[str, Tuple[Type["_Model"], bool]]] = {}
    #: attributes that are Decimal amounts.
    _decimals: ClassVar[Tuple[str, ...]] = ()
    #: attributes never shown by repr.
    _secrets: ClassVar[Tuple[str, ...]] = ()
    #: to_dict leaves out None (request objects: absent means "not set").
    _omit_none: ClassVar[bool] = False

    @classmethod
    def _plan(cls) -> Tuple[Tuple[Tuple[str, str, Any, bool], ...], FrozenSet[str], bool]:
        """What ``from_dict`` does per field, worked out once per class:
        (attribute, wire name, nested model or None, is a Decimal), the
        known wire names, and whether the class keeps ``extra``. (Working it
        out on every call was most of a typed call's Python time.)"""
        plan = cls.__dict__.get("_plan_cache")
        if plan is None:
            names = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
            fields = tuple(
                (name, _camel(name), cls._nested.get(name), name in cls._decimals)
                for name in names
                if name != "extra"
            )
            plan = (fields, frozenset(wire for _, wire, _, _ in fields), "extra" in names)
            setattr(cls, "_plan_cache", plan)
        return plan

    @classmethod
    def from_dict(cls: Type[_M], data: Mapping[str, Any]) -> _M:
        """Builds the object from a dict in the service's (camelCase) shape.
        Unknown keys go to ``extra``; a value of the wrong shape reads as None."""
        fields, known, has_extra = cls._plan()
        kwargs: Dict[str, Any] = {}
        for name, key, nested, is_decimal in fields:
            value = data.get(key)
            if nested is not None:
                model, is_list = nested
                if is_list:
                    items = value if isinstance(value, list) else []
                    value = [model.from_dict(v) for v in items if isinstance(v, Mapping)]
                else:
                    value = model.from_dict(value) if isinstance(value, Mapping) else None
            elif is_decimal and value is not None and not isinstance(value, Decimal):
                try:
                    value = Decimal(str(value))
                except ArithmeticError:
                    value = None
            kwargs[name] = value
        if has_extra:
            kwargs["extra"] = {k: v for k, v in data.items() if k not in known}
        return cls(**kwargs)

    def to_dict(self) -> Dict[str, Any]:
        """The data with the service's camelCase names; ``extra`` merged back."""
        out: Dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if f.name == "extra":
                out.update(_to_wire(value))
            elif value is None and self._omit_none:
                continue
            else:
                out[_camel(f.name)] = _to_wire(value)
        return out

    def __repr__(self) -> str:
        parts = []
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is None or value == [] or value == {}:
                continue
            shown = "'[redacted]'" if f.name in self._secrets else repr(value)
            parts.append(f"{f.name}={shown}")
        return f"{type(self).__name__}({', '.join(parts)})"


@dataclass(frozen=True, repr=False)
class ExternalData(_Model):
    """A key/value pair of external data."""

    key: Optional[str] = None
    value: Optional[str] = None


@dataclass(frozen=True, repr=False)
class Organization(_Model):
    """A restaurant. The fields after ``external_data`` are filled only in the
    Extended shape (``return_additional_info=True``)."""

    id: str = ""
    name: Optional[str] = None
    code: Optional[str] = None
    #: ``"Simple"`` or ``"Extended"`` (or a newer value, as sent).
    response_type: Optional[str] = None
    external_data: Optional[List[ExternalData]] = None
    country: Optional[str] = None
    restaurant_address: Optional[str] = None
    latitude: Optional[float] = None
    longitude: Optional[float] = None
    use_uae_addressing_system: Optional[bool] = None
    version: Optional[str] = None
    currency_iso_name: Optional[str] = None
    currency_minimum_denomination: Optional[Decimal] = None
    country_phone_code: Optional[str] = None
    marketing_source_required_in_delivery: Optional[bool] = None
    default_delivery_city_id: Optional[str] = None
    delivery_city_ids: Optional[List[str]] = None
    delivery_service_type: Optional[str] = None
    delivery_order_payment_settings: Optional[str] = None
    default_call_center_payment_type_id: Optional[str] = None
    order_item_comment_enabled: Optional[bool] = None
    inn: Optional[str] = None
    address_format_type: Optional[str] = None
    is_confirmation_enabled: Optional[bool] = None
    confirm_allowed_interval_in_minutes: Optional[int] = None
    is_cloud: Optional[bool] = None
    is_anonymous_guests_allowed: Optional[bool] = None
    address_lookup: Optional[List[str]] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    _decimals = ("currency_minimum_denomination",)

    @property
    def is_extended(self) -> bool:
        """Whether the organization came in the Extended shape."""
        return self.response_type == "Extended"


Organization._nested = {"external_data": (ExternalData, True)}


@dataclass(frozen=True, repr=False)
class OrganizationsResponse(_Model):
    """Answer of :meth:`Client.organizations`."""

    correlation_id: Optional[str] = None
    organizations: List[Organization] = field(default_factory=list)
    extra: Dict[str, Any] = field(default_factory=dict)

    _nested = {"organizations": (Organization, True)}


@dataclass(frozen=True, repr=False)
class StopListItem(_Model):
    """One out-of-stock item."""

    #: Remaining balance, exact.
    balance: Optional[Decimal] = None
    product_id: Optional[str] = None
    size_id: Optional[str] = None
    sku: Optional[str] = None
    #: When the item was added (UTC, ``yyyy-MM-dd HH:mm:ss.fff``, as sent).
    date_add: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    _decimals = ("balance",)


@dataclass(frozen=True, repr=False)
class TerminalGroupStopList(_Model):
    """Stop list of one terminal group."""

    terminal_group_id: Optional[str] = None
    items: List[StopListItem] = field(default_factory=list)

    _nested = {"items": (StopListItem, True)}


@dataclass(frozen=True, repr=False)
class OrganizationStopLists(_Model):
    """Stop lists of one organization."""

    organization_id: Optional[str] = None
    items: List[TerminalGroupStopList] = field(default_factory=list)

    _nested = {"items": (TerminalGroupStopList, True)}


@dataclass(frozen=True, repr=False)
class StopListsResponse(_Model):
    """Answer of :meth:`Client.stop_lists`: organization, terminal group, item."""

    correlation_id: Optional[str] = None
    terminal_group_stop_lists: List[OrganizationStopLists] = field(default_factory=list)
    extra: Dict[str, Any] = field(default_factory=dict)

    _nested = {"terminal_group_stop_lists": (OrganizationStopLists, True)}


@dataclass(frozen=True, repr=False)
class DeliveryOrderFilter(_Model):
    """``deliveryOrderFilter``: which delivery order changes are sent."""

    _omit_none = True

    order_statuses: Optional[List[str]] = None
    item_statuses: Optional[List[str]] = None
    errors: Optional[bool] = None
    returned_external_data_keys: Optional[List[str]] = None


@dataclass(frozen=True, repr=False)
class TableOrderFilter(_Model):
    """``tableOrderFilter``: which table order changes are sent."""

    _omit_none = True

    order_statuses: Optional[List[str]] = None
    item_statuses: Optional[List[str]] = None
    errors: Optional[bool] = None


@dataclass(frozen=True, repr=False)
class ReserveFilter(_Model):
    """``reserveFilter``."""

    _omit_none = True

    updates: Optional[bool] = None
    errors: Optional[bool] = None


@dataclass(frozen=True, repr=False)
class UpdatesFilter(_Model):
    """A filter that only switches a kind of event on or off."""

    _omit_none = True

    updates: Optional[bool] = None


@dataclass(frozen=True, repr=False)
class WebHooksFilter(_Model):
    """``webHooksFilter``: which events the service sends. Build one to pass to
    :meth:`Client.update_webhook_settings` (a plain dict works too). ``to_dict``
    leaves out members that are None."""

    _omit_none = True

    delivery_order_filter: Optional[DeliveryOrderFilter] = None
    table_order_filter: Optional[TableOrderFilter] = None
    reserve_filter: Optional[ReserveFilter] = None
    stop_list_update_filter: Optional[UpdatesFilter] = None
    personal_shift_filter: Optional[UpdatesFilter] = None
    nomenclature_update_filter: Optional[UpdatesFilter] = None
    business_hours_and_mapping_update_filter: Optional[UpdatesFilter] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    _nested = {
        "delivery_order_filter": (DeliveryOrderFilter, False),
        "table_order_filter": (TableOrderFilter, False),
        "reserve_filter": (ReserveFilter, False),
        "stop_list_update_filter": (UpdatesFilter, False),
        "personal_shift_filter": (UpdatesFilter, False),
        "nomenclature_update_filter": (UpdatesFilter, False),
        "business_hours_and_mapping_update_filter": (UpdatesFilter, False),
    }


@dataclass(frozen=True, repr=False)
class WebhookSettings(_Model):
    """Answer of :meth:`Client.webhook_settings`. ``auth_token`` is the token
    the service will send in ``Authorization``; ``repr`` never shows it."""

    correlation_id: Optional[str] = None
    api_login_name: Optional[str] = None
    web_hooks_uri: Optional[str] = None
    auth_token: Optional[str] = None
    web_hooks_filter: Optional[WebHooksFilter] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    _nested = {"web_hooks_filter": (WebHooksFilter, False)}
    _secrets = ("auth_token",)


@dataclass(frozen=True, repr=False)
class CorrelationIdResponse(_Model):
    """An answer that carries only ``correlationId``."""

    correlation_id: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)

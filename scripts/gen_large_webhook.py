#!/usr/bin/env python3
"""Writes benches/data/large_webhook.json: one DeliveryOrderUpdate of 1,500 items.

About 1 MB of compact JSON, shaped like tests/vectors/payloads/
delivery_order_update.json (Product items with modifiers, some Compound and
Service items, Cyrillic names, nulls). Fully deterministic: ids are UUIDv5 of
fixed names and every value is derived from the item index, so the file only
changes when this script does. Run from the repository root:

    python3 scripts/gen_large_webhook.py
"""

import json
import os
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "benches", "data", "large_webhook.json")
ITEMS = 1500
NS = uuid.UUID("6f1c1d2e-3b4a-5c6d-8e9f-0a1b2c3d4e5f")

DISHES = ["Пицца Маргарита", "Пицца Пепперони", "Ролл Филадельфия", "Салат Цезарь",
          "Борщ с пампушками", "Морс клюквенный 0,5 л", "Чай чёрный", "Котлета по-киевски"]
MODIFIERS = ["Двойная моцарелла", "Соус сырный", "Халапеньо", "Бекон"]
STATUSES = ["Added", "PrintedNotCooking", "CookingStarted", "CookingCompleted", "Served"]


def uid(*parts):
    return str(uuid.uuid5(NS, "/".join(str(p) for p in parts)))


def ref(kind, name):
    return {"id": uid(kind, name), "name": name}


def money(cents):
    # Doubles as .NET writes them: 590.0, 12.5, 99.99.
    return cents / 100


def modifier(i, j):
    name = MODIFIERS[(i + j) % len(MODIFIERS)]
    price = 3000 + 1000 * ((i + j) % 7)
    return {
        "product": ref("modifier", name),
        "amount": 1,
        "amountIndependentOfParentAmount": False,
        "productGroup": ref("group", "Добавки"),
        "price": money(price),
        "pricePredefined": False,
        "resultSum": money(price),
        "deleted": None,
        "positionId": uid("mod-pos", i, j),
        "defaultAmount": 0,
        "hideIfDefaultAmount": False,
        "taxPercent": None,
        "freeOfChargeAmount": 0,
    }


def common(i, kind):
    return {
        "type": kind,
        "status": STATUSES[i % len(STATUSES)],
        "deleted": None,
        "amount": 1 + i % 3,
        "comment": "Без лука" if i % 11 == 0 else None,
        "whenPrinted": "2025-09-16 19:%02d:%02d.%03d" % (i % 60, (i * 7) % 60, (i * 37) % 1000),
        "size": ref("size", "32 см") if i % 4 == 0 else None,
        "comboInformation": None,
    }


def product_item(i):
    dish = DISHES[i % len(DISHES)]
    price = 9900 + 1750 * (i % 13) + (i % 100)
    amount = 1 + i % 3
    item = common(i, "Product")
    item.update({
        "product": ref("dish", dish),
        "modifiers": [modifier(i, j) for j in range(i % 2)],
        "codes": None,
        "price": money(price),
        "cost": money(price * amount),
        "pricePredefined": False,
        "positionId": uid("pos", i),
        "taxPercent": 20.0 if i % 5 == 0 else None,
        "resultSum": money(price * amount),
    })
    return item


def component(i, half):
    price = 34000 + 100 * (i % 9)
    return {
        "product": ref("half", DISHES[(i + half) % 3] + " (половина)"),
        "modifiers": [],
        "price": money(price),
        "cost": money(price),
        "pricePredefined": False,
        "positionId": uid("half-pos", i, half),
        "taxPercent": None,
        "resultSum": money(price),
    }


def compound_item(i):
    item = common(i, "Compound")
    item.update({
        "primaryComponent": component(i, 0),
        "secondaryComponent": component(i, 1),
        "commonModifiers": [modifier(i, 0)],
        "template": ref("template", "Пицца 50/50"),
    })
    return item


def service_item(i):
    item = common(i, "Service")
    item.update({"service": ref("service", "Обслуживание 10%"), "cost": money(12200 + i)})
    return item


def item(i):
    if i % 10 == 7:
        return compound_item(i)
    if i % 25 == 24:
        return service_item(i)
    return product_item(i)


def main():
    items = [item(i) for i in range(ITEMS)]
    order = {
        "parentDeliveryId": None,
        "customer": {"type": "regular", "id": uid("customer"), "name": "Анна",
                     "surname": "Иванова", "comment": None, "gender": "Female",
                     "inBlacklist": False, "blacklistReason": None,
                     "birthdate": "1990-03-14 00:00:00.000"},
        "phone": "+79161234567",
        "deliveryPoint": {"coordinates": {"latitude": 55.751244, "longitude": 37.618423},
                          "address": {"street": {"id": uid("street"), "name": "Тверская",
                                                 "city": ref("city", "Москва")},
                                      "house": "7", "flat": "42", "region": None},
                          "comment": "Код домофона 42К"},
        "status": "Unconfirmed",
        "completeBefore": "2025-09-16 20:00:00.000",
        "whenCreated": "2025-09-16 19:00:04.512",
        "cookingStartTime": "2025-09-16 19:15:00.000",
        "comment": "Большой корпоративный заказ",
        "sum": 0.0,  # filled below
        "number": 10452,
        "guestsInfo": {"count": 150, "splitBetweenPersons": False},
        "items": items,
        "combos": [],
        "payments": [{"paymentType": {"id": uid("pay"), "name": "Оплата на сайте",
                                      "kind": "External"},
                      "sum": 0.0, "isPreliminary": True, "isExternal": True,
                      "isProcessedExternally": True, "isFiscalizedExternally": False,
                      "isPrepay": True}],
        "tips": [],
        "discounts": [],
        "orderType": {"id": uid("order-type"), "name": "Доставка курьером",
                      "orderServiceType": "DeliveryByCourier"},
        "terminalGroupId": uid("terminal-group"),
        "processedPaymentsSum": 0.0,
        "loyaltyInfo": None,
        "externalData": [{"key": "siteOrderId", "value": "WEB-2025-LARGE"}],
    }
    total_cents = 0
    for it in items:
        cost = it.get("resultSum", it.get("cost"))
        if cost is None:
            cost = it["primaryComponent"]["resultSum"] + it["secondaryComponent"]["resultSum"]
        total_cents += round(cost * 100)
    order["sum"] = money(total_cents)
    order["payments"][0]["sum"] = money(total_cents)
    order["processedPaymentsSum"] = money(total_cents)
    body = [{
        "eventType": "DeliveryOrderUpdate",
        "eventTime": "2025-09-16 16:02:11.877",
        "organizationId": uid("organization"),
        "correlationId": uid("correlation"),
        "eventInfo": {"id": uid("order"), "posId": None, "externalNumber": "WEB-2025-LARGE",
                      "organizationId": uid("organization"), "timestamp": 1758038531877,
                      "creationStatus": "Success", "errorInfo": None, "order": order},
    }]
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {OUT}: {len(text.encode('utf-8'))} bytes, {ITEMS} items, "
          f"sum {money(total_cents)}")


if __name__ == "__main__":
    main()

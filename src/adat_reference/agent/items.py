"""Which order lines and which new variants a message means: by id, by product name, by option values.

"exchange 1151293680 for 7706410293", "the keyboard with clicky switches", "return the cleaner and
the headphones", "everything except the tablet" all resolve here against one order and the catalogue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adat_reference.retail.database import Order, OrderItem, Product, RetailDB, Variant


@dataclass
class PairRequest:
    """One requested change of an order line; ``new_id`` None when no target could be determined."""

    line: OrderItem | None
    old_id: str
    new_id: str | None
    mentioned_values: bool = False  # the user named option values (so 'same as before' is a request)


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def normalise(text: str) -> str:
    """Lower-case, hyphens and punctuation to spaces, plural 's' dropped: 'T-Shirts' -> 't shirt'."""
    words = re.findall(r"[a-z0-9]+(?:\.[0-9]+)?", text.lower().replace("-", " "))
    return " " + " ".join(_stem(w) for w in words) + " "


def _word_pattern(word: str) -> str:
    return re.escape(_stem(word)) + r"(?:e?s)?"


def name_pattern(product_name: str) -> re.Pattern[str]:
    """Matches the product's name, joined or hyphenated, singular or plural, or its head noun."""
    words = re.findall(r"[a-z0-9]+", product_name.lower())
    alternatives = [r"[\s-]*".join(_word_pattern(w) for w in words), _word_pattern(words[-1])]
    if words == ["t", "shirt"]:
        alternatives += [r"tees?"]
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


def mentioned_lines(order: Order, text: str) -> list[tuple[int, OrderItem]]:
    """Order lines whose product the text names, with positions, in text order (one line per product)."""
    found: list[tuple[int, OrderItem]] = []
    seen_products: set[str] = set()
    for line in order.items:
        if line.product_id in seen_products:
            continue
        m = name_pattern(line.name).search(text)
        if m:
            found.append((m.start(), line))
            seen_products.add(line.product_id)
    return sorted(found, key=lambda pair: pair[0])


def _value_in(value: str, raw_segment: str, norm_segment: str) -> bool:
    if len(value) == 1 and value.isalpha():  # sizes 'S', 'M', 'L': only as a capital letter on its own
        return re.search(rf"(?<![\w']){re.escape(value)}(?![\w'])", raw_segment) is not None
    return f" {normalise(value).strip()} " in norm_segment


def target_options(product: Product, old: dict[str, str], segment: str) -> tuple[dict[str, str], bool]:
    """The old options with every option value the segment names; and whether it named any."""
    norm = normalise(segment)
    target, named = dict(old), False
    for key in old:
        values = sorted({v.options.get(key, "") for v in product.variants.values()} - {""})
        if set(values) <= {"yes", "no"}:  # 'waterproof' / 'not waterproof'
            key_norm = normalise(key).strip()
            if f" {key_norm} " in norm:
                named = True
                target[key] = "no" if re.search(rf"\b(?:not|non|no|without) {key_norm}", norm) else "yes"
            continue
        hits = [(norm.find(f" {normalise(v).strip()} "), v) for v in values if _value_in(v, segment, norm)]
        key_norm = normalise(key).strip()
        if "none" in values and re.search(rf" (?:no|without) {re.escape(key_norm)} ", norm):
            hits.append((norm.find(key_norm), "none"))  # 'no backlight' names the value 'none'
        hits = [(pos if pos >= 0 else len(norm), v) for pos, v in hits]
        if hits:
            named = True
            different = [v for _, v in sorted(hits) if v != old[key]]
            target[key] = different[-1] if different else old[key]
    return target, named


def find_variant(product: Product, options: dict[str, str]) -> Variant | None:
    return next((v for v in product.variants.values() if v.options == options), None)


def product_of_item(db: RetailDB, item_id: str) -> Product | None:
    return next((p for p in db.products.values() if item_id in p.variants), None)


def pair_requests(db: RetailDB, order: Order, text: str, numbers: list[str],
                  taken: list[str]) -> list[PairRequest]:
    """The changes the text asks for: explicit 'old for new' ids first, then product mentions.

    ``taken`` lists old item ids already paired in this task (a line is changed once).
    """
    requests: list[PairRequest] = []
    free = [line for line in order.items]
    for item_id in taken:
        line = next((ln for ln in free if ln.item_id == item_id), None)
        if line is not None:
            free.remove(line)
    waiting: list[str] = []
    for number in numbers:
        if number in db.products:
            continue  # a product id names a product, not an item
        line = next((ln for ln in free if ln.item_id == number), None)
        if line is not None:
            free.remove(line)
            waiting.append(number)
            continue
        product = product_of_item(db, number)
        if product is None or waiting or not any(ln.product_id == product.product_id for ln in free):
            old_id = waiting.pop(0) if waiting else number
            old_line = next((ln for ln in order.items if ln.item_id == old_id), None)
            requests.append(PairRequest(old_line, old_id, number if old_line is not None else None))
            continue
        same = next(ln for ln in free if ln.product_id == product.product_id)
        free.remove(same)
        requests.append(PairRequest(same, same.item_id, number))
    for old_id in waiting:
        segment = text[text.find(old_id):]
        requests.append(_describe(db, next(ln for ln in order.items if ln.item_id == old_id), segment))
    mentions = mentioned_lines(order, text)
    for index, (pos, line) in enumerate(mentions):
        candidates = [ln for ln in free if ln.product_id == line.product_id]
        if not candidates or any(r.line is not None and r.line.product_id == line.product_id for r in requests):
            continue
        end = mentions[index + 1][0] if index + 1 < len(mentions) else len(text)
        segment = text[pos:end]
        free.remove(candidates[0])
        requests.append(_describe(db, candidates[0], segment))
    if not requests and not mentions and len({ln.product_id for ln in free}) == 1 and free:
        request = _describe(db, free[0], text)  # a one-product order: 'make it a size M'
        if request.mentioned_values:
            requests.append(request)
    return requests


def _describe(db: RetailDB, line: OrderItem, segment: str) -> PairRequest:
    product = db.products.get(line.product_id)
    if product is None:
        return PairRequest(line, line.item_id, None)
    options, named = target_options(product, line.options, segment)
    variant = find_variant(product, options)
    if variant is None:
        return PairRequest(line, line.item_id, None, named)
    return PairRequest(line, line.item_id, variant.item_id if named else None, named)


def return_lines(order: Order, text: str, numbers: list[str], all_items: bool, except_text: str) -> list[str]:
    """Item ids to return: explicit ids, named products, or everything (minus 'except ...')."""
    if all_items:
        excluded = {ln.product_id for _, ln in mentioned_lines(order, except_text)} if except_text else set()
        return [ln.item_id for ln in order.items if ln.product_id not in excluded]
    product_ids = {ln.product_id for ln in order.items}
    chosen = [n for n in numbers if n not in product_ids]
    for _, line in mentioned_lines(order, text):
        chosen.extend(ln.item_id for ln in order.items if ln.product_id == line.product_id
                      and ln.item_id not in chosen)
    return chosen


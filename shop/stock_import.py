"""Stock in bulk: a CSV of ``product_id,warehouse_id,quantity`` checked in a dry run (reads by key only), then
applied row by row by ``shop.editing.stock_set``, conditioned on the quantity the dry run showed. One row's failure
never stops the others; applying the same rows again writes nothing (each a 409, ``already``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from dynamo import item_codec
from dynamo.instrumentation import run_in_context
from dynamo.no_answer import DYNAMODB_ERRORS
from shop import editing, keys
from shop.audit import Actor
from shop.bulk import WORKERS
from shop.editing import MAX_QUANTITY, same_number
from shop.errors import Busy, EditConflict, InvalidInput, NotFound, throttled
from shop.order_reads import raw_by_key
from shop.snapshots import Snapshot, is_entity

MAX_ROWS = 5_000
COLUMNS = ("product_id", "warehouse_id", "quantity")


class FileRefused(InvalidInput):
    """The file as a whole cannot be read as a stock list (encoding, header, size); nothing was checked."""


@dataclass(frozen=True)
class RowError:
    line: int
    message: str


@dataclass(frozen=True)
class PlannedRow:
    """A valid row: the quantity stored now (None: no stock row, or not read yet by ``parse``) and the one asked."""

    line: int
    product_id: str
    warehouse_id: str
    before: str | None
    after: int

    @property
    def changes(self) -> bool:
        return self.before is None or not same_number(self.before, str(self.after))


@dataclass(frozen=True)
class Plan:
    rows: list[PlannedRow]
    errors: list[RowError]
    skipped: list[int] = field(default_factory=list)  # the blank lines' numbers

    @property
    def changed(self) -> list[PlannedRow]:
        return [r for r in self.rows if r.changes]


@dataclass(frozen=True)
class RowOutcome:
    """What applying one row did: ``code`` 200, 409 (changed since the dry run: ``now``), 404, 400 or 503."""

    row: PlannedRow
    code: int
    message: str
    now: str | None = None

    @property
    def done(self) -> bool:
        return self.code == 200

    @property
    def already(self) -> bool:
        """Refused because the stock already holds what the file asks: applied before."""
        return self.code == 409 and self.now is not None and same_number(self.now, str(self.row.after))

    @property
    def quantity_now(self) -> str | None:
        """The quantity after this outcome, as far as it is known (None: no stock row)."""
        if self.done:
            return str(self.row.after)
        return self.now if self.code == 409 else self.row.before


def _text(data: bytes) -> str:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileRefused(
            f"the file is not UTF-8 text (byte {exc.start} cannot be read); save it as CSV UTF-8 and upload again"
        ) from exc
    if "\x00" in text:
        raise FileRefused("the file holds NUL bytes: it is not a CSV text file")
    return text


def _header(row: list[str]) -> dict[str, int]:
    names = [name.strip().lower() for name in row]
    missing = [c for c in COLUMNS if c not in names]
    if missing:
        raise FileRefused(f"the header row lacks the column(s) {', '.join(missing)}; it must name {','.join(COLUMNS)}")
    return {c: names.index(c) for c in COLUMNS}


def _quantity(text: str) -> int:
    if not text.isascii() or not text.isdigit():
        raise InvalidInput(f"quantity {text[:40]!r} is not a whole number >= 0")
    value = int(text)
    if value > MAX_QUANTITY:
        raise InvalidInput(f"quantity {value} is over {MAX_QUANTITY}")
    return value


def _row(line: int, row: list[str], columns: dict[str, int]) -> PlannedRow:
    try:
        cells = {c: row[i].strip() for c, i in columns.items()}
    except IndexError as exc:
        raise InvalidInput(f"missing value(s): the row needs {','.join(COLUMNS)}") from exc
    product_id, warehouse_id = (
        keys.bare(cells["product_id"], keys.PRODUCT),
        keys.bare(cells["warehouse_id"], keys.WAREHOUSE),
    )
    return PlannedRow(line, product_id, warehouse_id, None, _quantity(cells["quantity"]))


def parse(data: bytes) -> tuple[list[PlannedRow], list[RowError], list[int]]:
    """The valid rows, the errors of the others (a stock row named twice is one) and the blank lines skipped, with
    line numbers as an editor shows them; FileRefused for a file that cannot be read as a stock list."""
    reader = csv.reader(io.StringIO(_text(data), newline=""))
    rows: list[PlannedRow] = []
    errors: list[RowError] = []
    skipped: list[int] = []
    first_line: dict[tuple[str, str], int] = {}

    def filled() -> Iterator[list[str]]:
        for row in reader:
            if any(cell.strip() for cell in row):
                yield row
            else:
                skipped.append(reader.line_num)

    try:
        lines = filled()
        header = next(lines, None)
        if header is None:
            raise FileRefused(f"the file is empty; it needs a header row {','.join(COLUMNS)} and one row per stock")
        skipped.clear()  # blank lines before the header are no rows
        columns = _header(header)
        for count, row in enumerate(lines, start=1):
            if count > MAX_ROWS:
                raise FileRefused(f"the file has more than {MAX_ROWS:,} rows; split it")
            try:
                parsed = _row(reader.line_num, row, columns)
            except InvalidInput as exc:
                errors.append(RowError(reader.line_num, str(exc)))
                continue
            pair = (parsed.product_id, parsed.warehouse_id)
            if pair in first_line:
                where = f"product {pair[0]} in warehouse {pair[1]}"
                errors.append(RowError(parsed.line, f"{where} is already on line {first_line[pair]}"))
                continue
            first_line[pair] = parsed.line
            rows.append(parsed)
    except csv.Error as exc:
        raise FileRefused(f"line {reader.line_num}: not valid CSV ({exc})") from exc
    return rows, errors, skipped


def dry_run(data: bytes) -> Plan:
    """Every row's change and every error, from reads by key only; nothing is written."""
    parsed, errors, skipped = parse(data)
    products = sorted({keys.product(r.product_id) for r in parsed})
    warehouses = sorted({keys.warehouse(r.warehouse_id) for r in parsed})
    stock_keys = [(keys.product(r.product_id), keys.warehouse(r.warehouse_id)) for r in parsed]
    wanted = [(k, k) for k in products + warehouses] + stock_keys
    found = {key: item for key, item in zip(wanted, raw_by_key(wanted), strict=True) if item is not None}
    rows: list[PlannedRow] = []
    for row, stock_key in zip(parsed, stock_keys, strict=True):
        pk, sk = stock_key
        if not is_entity(found.get((pk, pk)), "product"):
            errors.append(RowError(row.line, f"unknown product {row.product_id}"))
            continue
        if not is_entity(found.get((sk, sk)), "warehouse"):
            errors.append(RowError(row.line, f"unknown warehouse {row.warehouse_id}"))
            continue
        stock = found.get(stock_key)
        stored = item_codec.decode(stock).get("Quantity") if stock is not None else None
        before = stored if isinstance(stored, str) else None
        if stock is not None and before is None:
            errors.append(RowError(row.line, "the stored quantity is not a decimal string; fix it on the stock page"))
            continue
        rows.append(replace(row, before=before))
    errors.sort(key=lambda e: e.line)
    return Plan(rows=rows, errors=errors, skipped=skipped)


def apply_row(row: PlannedRow, actor: Actor) -> RowOutcome:
    """One row, conditioned on the quantity the dry run showed."""
    seen = Snapshot(values={"Quantity": row.before}, exists=row.before is not None)
    try:
        editing.stock_set(
            product_id=row.product_id,
            warehouse_id=row.warehouse_id,
            quantity=row.after,
            seen=seen,
            actor=actor,
            action=editing.STOCK_IMPORT,
        )
    except EditConflict as exc:
        now = next((d.now for d in exc.drifts if d.attribute == "Quantity"), None)
        return RowOutcome(row, 409, f"changed meanwhile: now {now if now is not None else 'no stock row'}", now)
    except (NotFound, InvalidInput, Busy) as exc:
        return RowOutcome(row, exc.http_status, str(exc))
    except DYNAMODB_ERRORS as exc:
        if not throttled(exc):
            raise
        return RowOutcome(row, 503, "DynamoDB is throttling; nothing was written, try again")
    return RowOutcome(row, 200, "done")


def apply(rows: Sequence[PlannedRow], *, actor: Actor, workers: int = WORKERS) -> list[RowOutcome]:
    """Apply the rows that change something, ``workers`` at a time; outcomes in the rows' order."""
    if len(rows) > MAX_ROWS:
        raise InvalidInput(f"at most {MAX_ROWS:,} rows at once")
    wanted = [r for r in rows if r.changes]
    if not wanted:
        return []
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(wanted)))) as pool:
        return list(pool.map(run_in_context(lambda row: apply_row(row, actor)), wanted))

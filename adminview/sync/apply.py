"""Applying stream records to the view: the sync's half of ``adminview.core.anchor``'s protocol, in the five steps
``docs/admin-view.md`` gives, the anchor last so that a crash anywhere replays the records to the same effect. An
anchor or counted item that lost a race is folded again from fresh reads, then its partition is repaired from the
source (``repair.settle``): what this sync wrote before the anchor may have landed after the winner's writes.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from adminview.core import guard, numbers, records, schema, sources, values
from adminview.core.anchor import MAX_RECORD_AGE_S, Item, Writes, plan, seq_number
from adminview.core.sources import Source, State
from adminview.repair import repair
from adminview.repair.table_walk import source_table, view_table
from adminview.tables import read_items, view_client, write_entries
from dynamo import backoff, conf, item_codec, side_by_side, statements, transactions

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class Prepared:
    record: dict[str, Any]
    event_id: str
    seq: str
    source: Source
    key: schema.Key  # the source item's key
    image: Item | None  # its image after the change, decoded (None: removed)
    anchor: schema.Key | None
    free: list[Item]  # view items that follow from this source item alone (no anchor)


@dataclass
class Outcome:
    applied: int = 0
    skipped: int = 0  # nothing to change: stale, replayed, or no effect on the view
    failed: dict[str, str] = field(default_factory=dict)  # failure key (see failure_key) -> error
    dead_lettered: int = 0  # failed records stored (or stored again) in the dead-letter store by this batch


def event_id(record: Any) -> str:
    """``eventID``, else the sequence number; empty when the record has neither."""
    own = record.get("eventID") if isinstance(record, dict) else None
    return str(own or records.sequence_number(record) or "")


def failure_key(record: Any, index: int) -> str:
    """How ``Outcome.failed`` names a record: its event id, or its position when it has no id at all."""
    return event_id(record) or f"#{index}"


def prepare(record: dict[str, Any], list_shards: int) -> Prepared:
    """A record checked, its source and anchor found, and the one image the core reads (the new one; the old one
    of a REMOVE) decoded into plain values, once: everything after this sees no DynamoDB JSON."""
    event = records.check(record)
    source = sources.for_record(record)
    body = record["dynamodb"]
    # only the images this kind of change carries: a stray image must not change what the record means
    old = body.get("OldImage") if event != "INSERT" else None
    new = body.get("NewImage") if event != "REMOVE" else None
    image, given = item_codec.decode(new or old or {}), body.get("Keys")
    key = values.maybe_key(item_codec.decode(given) if isinstance(given, dict) and given else image)
    if key is None:
        raise ValueError("record has no PK/SK keys")
    seq = str(body.get("SequenceNumber", ""))
    seq_number(seq)  # numeric, or the record fails here
    plain_new = image if new is not None else None
    anchor = source.anchor_of(key, image)
    free = source.free_items(key, image, list_shards) if anchor is None and plain_new is not None else []
    return Prepared(record, event_id(record), seq, source, key, plain_new, anchor, free)


# --- reading and folding ---------------------------------------------------------------------------------------


@dataclass
class Folded:
    """One anchor's records folded into its state: the writes, and how many records counted."""

    writes: Writes | None  # None: nothing applied
    counted: numbers.Counted | None  # the anchor's counted item as read (what the sums hold for it)
    applied: int = 0
    skipped: int = 0


def fold(state: State, group: Sequence[Prepared], counted: numbers.Counted | None, list_shards: int) -> Folded:
    """Apply a group's records to the state read from its anchor (``plan`` then says what to write)."""
    before = state.implied(list_shards)
    seen: set[schema.Key] = set()
    applied = skipped = 0
    for p in group:
        sk = p.key[1]
        if state.book.too_old(sk, records.created_at(p.record)):
            raise ValueError(
                f"record {p.event_id} of {p.key[0]} {sk} is older than an anchor's stub can live "
                f"({MAX_RECORD_AGE_S // 3600} h) and the item has no sequence number applied, so newer state may "
                "already be in the view: not applied (rebuild_adminview repairs the view from the source tables)"
            )
        if not state.book.is_new(sk, p.seq):
            skipped += 1
            continue
        if applied and (p.image is None or sk in state.book.seqs):  # a change to what an earlier record set
            seen.update(state.implied(list_shards).entries)
        state.apply(sk, p.image)
        state.book.seqs[sk] = p.seq
        applied += 1
    if not applied:
        return Folded(None, counted, 0, skipped)
    after = state.implied(list_shards)
    return Folded(
        plan(before, after, state.book, state.stub_kind, seen=seen, applied_at=time.time()), counted, applied, skipped
    )


# --- writing ---------------------------------------------------------------------------------------------------


def counting_transactions(
    table: str, moves: Sequence[numbers.Move], extra: int = 0
) -> list[tuple[list[int], list[dict[str, Any]]]]:
    """The TransactWriteItems that move these anchors' counted items and the sums (positions in ``moves``, and the
    encoded actions; ``extra`` actions left free). Anchors of one sum shard go together, so their sums merge, in
    the order of the sum items they change, so that those adding to the same day or month share a transaction."""
    deltas = [numbers.difference(before.sums, after) for before, after in moves]
    by_shard: dict[int, list[int]] = {}
    for i, (before, _after) in enumerate(moves):
        anchor = schema.counted_anchor(before.key) or before.key
        by_shard.setdefault(schema.sum_shard(anchor), []).append(i)
    found: list[tuple[list[int], list[dict[str, Any]]]] = []
    for positions in by_shard.values():
        positions.sort(key=lambda i: sorted(deltas[i]))
        touched = [deltas[i].keys() for i in positions]
        for part in numbers.pack([1] * len(positions), touched, transactions.MAX_ITEMS - extra):
            group = [positions[j] for j in part]
            actions = [numbers.counted_write(table, *moves[i]) for i in group]
            actions += numbers.sum_updates(table, (deltas[i] for i in group))
            found.append((group, [item_codec.encode_action(action) for action in actions]))
    return found


def _raced(write: Callable[[T], set[schema.Key]], jobs: Iterable[T]) -> set[schema.Key]:
    """``write`` over ``jobs`` side by side: the keys whose writes lost a race."""
    return {k for raced in side_by_side.map_calls(write, jobs) for k in raced}


def _count(folded: dict[schema.Key, Folded]) -> set[schema.Key]:
    """Step 4: the anchors whose sums changed; returns those whose counted item had moved meanwhile."""
    client, table = view_client()
    moving = [
        (key, move)
        for key, f in folded.items()
        if f.writes is not None and f.counted is not None and (move := numbers.move(f.counted, f.writes.sums))
    ]
    moves = [move for _key, move in moving]

    def commit(job: tuple[list[int], list[dict[str, Any]]]) -> set[schema.Key]:
        positions, actions = job
        try:
            transactions.write(client, actions)
        except transactions.TransactionCancelled as exc:
            if not exc.lost_race:
                raise
            return {moving[i][0] for i in positions}
        return set()

    return _raced(commit, counting_transactions(table, moves))


def _anchor_statement(table: str, w: Writes, stored_names: Iterable[str]) -> statements.Statement | None:
    """The anchor's write as one PartiQL statement conditioned as its PutItem would be (``INSERT``, or ``UPDATE``
    removing the ``stored_names`` it no longer has); None: not a put, or too long for a statement."""
    item, quoted = w.anchor, statements.quoted
    if item is None:
        return None
    if not w.stored:
        fields = ", ".join(f"{statements.literal(name)}: ?" for name in item)
        text, parameters = f"INSERT INTO {quoted(table)} VALUE {{{fields}}}", list(item.values())
    else:
        keys = (schema.PK, schema.SK)
        kept = [name for name in item if name not in keys]
        gone = sorted(set(stored_names) - set(item) - set(keys))
        condition, condition_parameters = guard.unchanged_where(rev=w.rev)
        text = " ".join(
            [
                f"UPDATE {quoted(table)}",
                *(f"SET {quoted(name)}=?" for name in kept),
                *(f"REMOVE {quoted(name)}" for name in gone),
                f"WHERE {quoted(schema.PK)}=? AND {quoted(schema.SK)}=? AND {condition}",
            ]
        )
        parameters = [*(item[name] for name in kept), *w.key, *condition_parameters]
    return {"Statement": text, "Parameters": parameters} if len(text) <= statements.MAX_CHARS else None


def _by_statements(client: Any, table: str) -> bool:
    setting = conf.anchor_writes()
    return setting == "partiql" or (setting == "auto" and statements.keeps_conditions(client, table))


def _write_anchors(writes: list[Writes], stored: dict[schema.Key, Item | None]) -> set[schema.Key]:
    """Step 5: each anchor, conditioned on its ``Rev`` as read (``stored``: the items read); returns those that had
    changed meanwhile. Puts go 25 to a call as PartiQL statements where the engine keeps their conditions."""
    client, table = view_client()
    batched: dict[schema.Key, statements.Statement] = {}
    if writes and _by_statements(client, table):
        for w in writes:
            if (statement := _anchor_statement(table, w, stored.get(w.key) or ())) is not None:
                batched[w.key] = statement
    raced: set[schema.Key] = set()
    for key, code in zip(batched, statements.execute(client, list(batched.values())), strict=True):
        if code in statements.LOST_RACE:
            raced.add(key)
        elif code is not None:
            raise RuntimeError(f"anchor {key} not written: {code}")

    def write(w: Writes) -> set[schema.Key]:
        action = w.anchor_action(table)
        if action is None:
            return set()
        try:
            if "Put" in action:
                client.put_item(**item_codec.encode_request(action["Put"]))
            else:
                client.delete_item(**item_codec.encode_request(action["Delete"]))
        except client.exceptions.ConditionalCheckFailedException:
            return {w.key}
        return set()

    return raced | _raced(write, [w for w in writes if w.key not in batched])


# --- one batch -------------------------------------------------------------------------------------------------


@dataclass
class Attempt:
    applied: int
    skipped: int
    raced: set[schema.Key]  # anchors to fold again: someone else wrote them meanwhile
    wrote: dict[schema.Key, set[schema.Key]]  # each anchor's entries this attempt wrote


def _apply_once(
    groups: dict[schema.Key, list[Prepared]], list_shards: int, free: dict[schema.Key, Item | None] | None = None
) -> Attempt:
    """Fold and write every group once; ``free`` items (of no anchor) go in the entries' BatchWriteItem calls."""
    counting = [key for key, group in groups.items() if group[0].source.counts(key)]
    stored = read_items([*groups, *map(schema.counted, counting)])
    folded: dict[schema.Key, Folded] = {}
    for key, group in groups.items():
        state = group[0].source.read_state(key, stored[key])
        counted = None
        if key in counting:
            counted = numbers.read_counted(schema.counted(key), stored[schema.counted(key)])
        folded[key] = fold(state, group, counted, list_shards)
    written = [f.writes for f in folded.values() if f.writes is not None]
    write_entries((free or {}) | {k: item for w in written for k, item in w.entries.items()})
    raced = _count(folded)
    raced |= _write_anchors([w for w in written if w.key not in raced], stored)
    applied = sum(f.applied for k, f in folded.items() if k not in raced)
    skipped = sum(f.skipped for k, f in folded.items() if k not in raced)
    return Attempt(applied, skipped, raced, {w.key: set(w.entries) for w in written})


def _apply_prepared(batch: list[Prepared], list_shards: int) -> tuple[int, int]:
    free: dict[schema.Key, Item | None] = {values.item_key(item): item for p in batch for item in p.free}
    groups: dict[schema.Key, list[Prepared]] = {}
    for p in batch:
        if p.anchor is not None:
            groups.setdefault(p.anchor, []).append(p)
    ignored = sum(1 for p in batch if p.anchor is None and not p.free)
    applied, skipped, pending = 0, ignored, groups
    lost: dict[schema.Key, set[schema.Key]] = {}  # anchors that lost a race, and the entries written for them
    for _ in backoff.ANCHOR_RACES.sends():
        attempt = _apply_once(pending, list_shards, free)
        free = {}  # written with the first attempt's entries
        applied, skipped = applied + attempt.applied, skipped + attempt.skipped
        for key in attempt.raced:
            lost.setdefault(key, set()).update(attempt.wrote.get(key, ()))
        if not attempt.raced:
            _settle({key: (groups[key][0], wrote) for key, wrote in lost.items()})
            return applied + sum(1 for p in batch if p.free), skipped
        pending = {k: groups[k] for k in attempt.raced}
    raise RuntimeError(f"anchors {sorted(pending)[:3]} kept changing (a rebuild writing them?)")


def _settle(lost: dict[schema.Key, tuple[Prepared, set[schema.Key]]]) -> None:
    partitions: dict[tuple[str, str], tuple[Source, set[schema.Key]]] = {}
    for p, wrote in lost.values():  # one partition may hold several anchors
        partitions.setdefault((p.source.name, p.key[0]), (p.source, set()))[1].update(wrote)
    if partitions:
        wanted = [
            repair.Wanted(source_table(source), source, pk, tuple(sorted(wrote)))
            for (_name, pk), (source, wrote) in partitions.items()
        ]
        repair.settle(view_table(), wanted)


def _error_text(exc: Exception) -> str:
    return (
        str(exc) if isinstance(exc, records.UnusableRecord | sources.UnknownSource) else f"{type(exc).__name__}: {exc}"
    )


def apply_records(batch: Sequence[dict[str, Any]]) -> Outcome:
    """Apply stream records (DynamoDB Streams / Lambda event shape) in order; never raises for a record."""
    outcome = Outcome()
    list_shards = schema.list_shards()
    prepared: list[Prepared] = []
    for index, record in enumerate(batch):
        try:
            prepared.append(prepare(record, list_shards))
        except Exception as exc:  # a poison record fails alone
            outcome.failed[failure_key(record, index)] = _error_text(exc)
    if not prepared:
        return outcome
    try:
        done = [_apply_prepared(prepared, list_shards)]
    except Exception as exc:
        log.warning("batch of %d records failed (%s); applying them one by one", len(prepared), exc)
        done = []
        for p in prepared:  # isolate the record(s) that break the batch
            try:
                done.append(_apply_prepared([p], list_shards))
            except Exception as error:
                outcome.failed[p.event_id] = f"{type(error).__name__}: {error}"
    outcome.applied, outcome.skipped = sum(a for a, _s in done), sum(s for _a, s in done)
    return outcome

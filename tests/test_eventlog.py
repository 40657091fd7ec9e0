"""The JSON Lines event log: round trips, and every bad line named by line and field."""

from __future__ import annotations

import io

import pytest

from referee.cards import Card
from referee.eventlog import LogFormatError, read_records, read_records_strict, record_to_json, write_records
from referee.events import Call, CallKind, Correction, GameStart, Hand, Outcome, Play, Slap, Verdict
from referee.players import Player
from referee.rules import RuleSet

RECORDS = [
    GameStart(t=0.0, game=3, rules=RuleSet(four_piles=True), seed=12),
    Play(t=12.48, frame=374, player=Player.A, hand=Hand.RIGHT, start=12.1, slot=3, pile=2,
         card=Card.parse("QH"), evidence={"contact_sd": 0.011}),
    Verdict(t=12.48, frame=374, event=0, player=Player.A, outcome=Outcome.FAULT, code="F_ILLEGAL_RANK",
            rule="P3", message="A played QH"),
    Slap(t=20.0, player=Player.B, pile=1),
    Call(t=20.0, call=CallKind.SLAP_WINNER, player=Player.B, pile=1, message="B first"),
    Correction(t=21.5, frame=645, player=Player.B, slot=2, card=Card.parse("KC"), was=Card.parse("QC"),
               evidence={"corrects": "turn"}),
    Correction(t=22.0, frame=660, player=Player.A, pile=1, card=Card.parse("AS"), was=Card.parse("KS"),
               evidence={"corrects": "doubtful spit card"}),
    Verdict(t=12.48, frame=374, event=0, player=Player.A, outcome=Outcome.LEGAL, message="judged again",
            revised=True),
]


def test_round_trip_keeps_every_field() -> None:
    buffer = io.StringIO()
    assert write_records(buffer, RECORDS) == len(RECORDS)
    buffer.seek(0)
    back = read_records_strict(buffer)
    assert back == RECORDS
    assert back[1].evidence == {"contact_sd": 0.011}  # type: ignore[union-attr]


def test_lines_are_compact_json_with_type_first() -> None:
    line = record_to_json(RECORDS[3])
    assert line == '{"type":"slap","t":20.0,"player":"B","pile":1}'
    assert '"revised"' not in record_to_json(RECORDS[2])  # left out unless a verdict was given anew
    assert record_to_json(RECORDS[-1]).endswith('"revised":true}')


GOOD = '{"type":"slap","t":1.0,"player":"A","pile":1}'


@pytest.mark.parametrize(("line", "field", "error"), [
    ('{"type":"slap","t":1.0,"player":"C","pile":1}', "player", "'C' is not one of"),
    ('{"type":"play","t":1.0,"player":"A","slot":1,"pile":1,"card":"ZZ"}', "card", "unknown card code"),
    ('{"type":"play","t":1.0,"player":"A","slot":1,"pile":1}', "card", "missing"),
    ('{"type":"slap","t":-1,"player":"A","pile":1}', "t", "finite time >= 0"),
    ('{"type":"slap","t":"soon","player":"A","pile":1}', "t", "must be a number"),
    ('{"type":"slap","t":1.0,"player":"A","pile":0}', "pile", ">= 1"),
    ('{"type":"slap","t":1.0,"player":"A","pile":true}', "pile", "whole number"),
    ('{"type":"slap","t":1.0,"player":"A","pile":1,"colour":"red"}', "colour", "not a field"),
    ('{"type":"correct","t":1.0,"player":"A","slot":2,"card":"KC","was":"1C"}', "was", "unknown card code"),
    ('{"type":"correct","t":1.0,"player":"A","slot":2,"card":"KC"}', "was", "missing"),
    ('{"type":"correct","t":1.0,"player":"A","card":"KC","was":"QC"}', "slot", "not both nor neither"),
    ('{"type":"correct","t":1.0,"player":"A","slot":2,"pile":1,"card":"KC","was":"QC"}', "slot",
     "nor neither"),
    ('{"type":"verdict","t":1.0,"event":0,"player":"A","outcome":"legal","revised":"yes"}', "revised",
     "must be true or false"),
    ('{"type":"dance","t":1.0}', "type", "unknown record type"),
    ('{"type":"slap","t":1.0,"start":2.0,"player":"A","pile":1}', "start", "after t"),
    ('{"type":"game_start","t":0,"rules":{"V9":true}}', "rules.V9", "unknown rule setting"),
    ('{"type":"game_start","t":0,"rules":{"four_piles":true,"canfield":true}}', "rules", "cannot both"),
    ('[1, 2]', None, "must be a JSON object"),
    ('{"type":"slap","t":1.0,', None, "not valid JSON"),
])
def test_bad_lines_are_named_and_good_lines_kept(line: str, field: str | None, error: str) -> None:
    stream = io.StringIO(f"{GOOD}\n{line}\n\n{GOOD}\n")
    contents = read_records(stream, "game.jsonl")
    assert len(contents.records) == 2
    (err,) = contents.errors
    assert (err.line, err.field) == (2, field)
    assert error in err.message
    assert str(err).startswith("game.jsonl:2:")


def test_torn_last_line_is_reported_as_such() -> None:
    contents = read_records(io.StringIO(GOOD + "\n" + GOOD[:20]), "crash.jsonl")
    assert len(contents.records) == 1 and "torn last line" in contents.errors[0].message


def test_strict_reader_raises_with_line_and_field() -> None:
    with pytest.raises(LogFormatError, match=r"x.jsonl:2: field 'player'") as info:
        read_records_strict(io.StringIO(GOOD + '\n{"type":"slap","t":1,"player":"Z","pile":1}\n'), "x.jsonl")
    assert isinstance(info.value, ValueError)

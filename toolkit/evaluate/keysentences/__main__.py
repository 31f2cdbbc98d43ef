"""``python -m toolkit.evaluate.keysentences``: label and measure quotes' key sentences.

    ... sample --sources tsj,blitz --per 25 --out /tmp/sheet.md   a labelling sheet
    ... freeze ANSWERS.jsonl        add {"source","id","key":[k]} answers as hashes
    ... measure [--loso]            how often the engine's quotes hold the key
    ... train                       fit the key-sentence model on every label

The sheet quotes the chats: write it outside the repository. Without the cache (a fresh
clone, CI) each command says so in one line and exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolkit.evaluate.corpus.store import CorpusMissing
from toolkit.evaluate.keysentences.labels import KEYS_FILE, KeyLabel, read_labels, sentence_hash
from toolkit.evaluate.keysentences.measure import LIMITS, cases, hit_rates
from toolkit.evaluate.keysentences.sample import candidates, sample, sheet
from toolkit.evaluate.keysentences.train import fit, loso, write
from toolkit.summarize.extractive.draft.keys import (
    KEY_WEIGHTS,
    LINE_VOCABULARY,
    SUMMARY_VOCABULARY,
)


def _sample(args: argparse.Namespace) -> int:
    sources = set(args.sources.split(",")) if args.sources else None
    done = {(lab.source, lab.id) for lab in read_labels()}
    found = [c for c in candidates(sources) if (c.source, c.label_id) not in done]
    chosen = sample(found, args.per, args.seed)
    Path(args.out).write_text(sheet(chosen), encoding="utf-8")
    print(f"{len(chosen)} messages to label in {args.out}")
    return 0


def _freeze(args: argparse.Namespace) -> int:
    answers = [json.loads(x) for x in Path(args.answers).read_text().splitlines() if x.strip()]
    by_id = {(c.source, c.label_id): c for c in candidates({a["source"] for a in answers})}
    done = {(lab.source, lab.id) for lab in read_labels()}
    rows = []
    for a in answers:
        c = by_id.get((a["source"], a["id"]))
        if c is None or (a["source"], a["id"]) in done:
            print(f"skipped {a['source']}:{a['id']} (not a candidate, or labelled)")
            continue
        key = tuple(sentence_hash(c.sentences[k]) for k in a["key"])
        rows.append(KeyLabel(a["source"], a["id"], key, len(c.sentences)).row())
    with KEYS_FILE.open("a", encoding="utf-8") as out:
        out.writelines(json.dumps(r) + "\n" for r in rows)
    print(f"{len(rows)} labels added to {KEYS_FILE.name}")
    return 0


def _table(rates: dict[str, dict[int, tuple[int, int]]]) -> None:
    print("source      " + "  ".join(f"limit {x:>3}" for x in LIMITS))
    for name, by_limit in sorted(rates.items(), key=lambda kv: (kv[0] == "all", kv[0])):
        cells = [f"{by_limit[x][0]:>3}/{by_limit[x][1]:<3}" for x in LIMITS]
        print(f"{name:10}  " + "    ".join(cells))


def _measure(args: argparse.Namespace) -> int:
    found = cases(read_labels())
    print("quotes holding the key sentence, sentences weighed by vocabulary alone:")
    _table(hit_rates(found))
    if args.loso:
        print("the model fitted on the other sources (leave-one-source-out), sections' lines:")
        _table(loso(found, LINE_VOCABULARY))
        print("the same, the summary paragraph (vocabulary weighed beside the model):")
        _table(loso(found, SUMMARY_VOCABULARY))
    return 0


def _train(args: argparse.Namespace) -> int:
    found = cases(read_labels())
    write(fit(found))
    print(f"key-sentence model fitted on {len(found)} messages, written to {KEY_WEIGHTS.name}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m toolkit.evaluate.keysentences")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sample")
    p.add_argument("--sources", default="")
    p.add_argument("--per", type=int, default=25)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", required=True)
    p.set_defaults(run=_sample)
    p = sub.add_parser("freeze")
    p.add_argument("answers")
    p.set_defaults(run=_freeze)
    p = sub.add_parser("measure")
    p.add_argument("--loso", action="store_true")
    p.set_defaults(run=_measure)
    sub.add_parser("train").set_defaults(run=_train)
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except CorpusMissing as exc:
        print(exc)
        return 0


if __name__ == "__main__":
    sys.exit(main())

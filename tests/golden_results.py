"""Write the golden results of the bundled scenarios (tests/golden/*.json).

Run ``.venv/bin/python tests/golden_results.py`` after a deliberate change to the model or to a bundled scenario,
read the diff of tests/golden/ as a reviewer would, and commit it with the reason. test_scenarios.py compares
every evaluation against these files.
"""

from __future__ import annotations

import json
from pathlib import Path

import rackcost

GOLDEN = Path(__file__).resolve().parent / "golden"


def golden(path: Path) -> dict:
    """The result of a bundled scenario as stored in its golden file."""
    return json.loads(rackcost.evaluate(rackcost.load_scenario(path)).to_json())


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for path in rackcost.bundled_scenarios():
        out = GOLDEN / f"{path.stem}.json"
        out.write_text(json.dumps(golden(path), indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()

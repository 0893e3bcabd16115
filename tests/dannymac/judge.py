"""DannyMac180/ACE's own code as the judge of ace-tools' dannymac format
and dannymac-ops dialect (tests/cli/dannymac.rs).

    judge.py dump DB OUT            `ace playbook dump --out OUT` of the
                                    store in DB
    judge.py apply DUMP DELTA OUT   `ace playbook import --file DUMP` into
                                    a new store, `ace commit --delta
                                    DELTA`, then the dump of it

Each command does what `ace/cli.py` (a16ab50) does, with the store's
file in the working folder: their `Store` makes `sqlite://PATH` of its
path, which their `DatabaseConnection` takes as relative to the working
folder even when PATH is absolute.
"""

import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ace.core.merge import Delta, apply_delta  # noqa: E402
from ace.core.schema import Playbook  # noqa: E402
from ace.core.storage.store_adapter import Store  # noqa: E402


def dump(store, out):
    playbook = store.load_playbook()
    with open(out, "w") as f:
        json.dump(playbook.model_dump(), f, indent=2, default=str)


def main(argv):
    if argv[0] == "dump":
        shutil.copy(argv[1], "dump.db")
        dump(Store("dump.db"), argv[2])
    elif argv[0] == "apply":
        _, playbook_file, delta_file, out = argv
        store = Store("judge.db")
        with open(playbook_file) as f:
            store.load_playbook_data(Playbook.model_validate(json.load(f)))
        with open(delta_file) as f:
            delta = Delta.from_dict(json.load(f))
        apply_delta(store.load_playbook(), delta, store)
        dump(store, out)
    else:
        raise SystemExit(f"unknown command {argv[0]}")


if __name__ == "__main__":
    main(sys.argv[1:])

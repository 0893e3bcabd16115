"""ace-playbook's OfflineTrainer.load_initial_playbook on a file: each
bullet made `PlaybookBullet(**bullet)` (ace/ops/offline_trainer.py,
eaa1f01), with the models of tests/ace_playbook; a key the model has no
column for is a TypeError, as it is there. Prints the bullets it made.

Usage: python load_trainer.py FILE
"""

import json
import sys

from models import PlaybookBullet

with open(sys.argv[1], "r", encoding="utf-8") as f:
    playbook_data = json.load(f)
bullets = [PlaybookBullet(**bullet) for bullet in playbook_data.get("bullets", [])]
print(json.dumps([
    {"id": b.id, "content": b.content, "section": b.section,
     "helpful_count": b.helpful_count, "harmful_count": b.harmful_count, "tags": b.tags}
    for b in bullets
]))

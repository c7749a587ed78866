"""PyYAML's own error position for each text, loaded the way the trainer loads its config
(yaml.load with OmegaConf's loader). Reads a JSON list of texts, or of {"path": …} to read a file
as Hydra does (open(path, encoding="utf-8"): a BOM stays, CRLF becomes LF), on stdin; writes a
JSON list of {problem, context, line, col, cline, ccol} (1-based) or {"ok": true}.
Run with /usr/bin/python3."""
import json
import sys

import yaml
from omegaconf._utils import get_yaml_loader

out = []
for item in json.load(sys.stdin):
    try:
        if isinstance(item, dict):
            with open(item["path"], encoding="utf-8") as f:
                yaml.load(f, Loader=get_yaml_loader())
        else:
            yaml.load(item, Loader=get_yaml_loader())
        out.append({"ok": True})
    except yaml.MarkedYAMLError as e:
        pm, cm = e.problem_mark, e.context_mark
        out.append({
            "problem": e.problem, "context": e.context,
            "line": pm.line + 1 if pm else None, "col": pm.column + 1 if pm else None,
            "cline": cm.line + 1 if cm else None, "ccol": cm.column + 1 if cm else None,
        })
    except Exception as e:  # noqa: BLE001 (a constructor error: not a position question)
        out.append({"other": type(e).__name__, "message": str(e)})
json.dump(out, sys.stdout)

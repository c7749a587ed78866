"""For each text (JSON list on stdin), what the trainer's loader (yaml.load with OmegaConf's loader,
pure-Python PyYAML, then OmegaConf.create) makes of it: {"value": typed tree}, the YAML error with its
problem_mark (1-based), or {"other": …} for an error without one.
Typed tree: {"t": "map", "m": [[key, v]...]}, {"t": "list", "a": [...]}, {"t": "int", "v": "12"},
{"t": "float", "v": repr}, {"t": "str"|"bool"|"null", "v": ...}. Run with /usr/bin/python3."""
import json
import sys

import yaml
from omegaconf import OmegaConf
from omegaconf._utils import get_yaml_loader


def typed(x):
    if isinstance(x, dict):
        return {"t": "map", "m": [[str(k) if not isinstance(k, bool) else str(k), typed(v)] for k, v in x.items()]}
    if isinstance(x, list):
        return {"t": "list", "a": [typed(v) for v in x]}
    if isinstance(x, bool):
        return {"t": "bool", "v": x}
    if isinstance(x, int):
        return {"t": "int", "v": str(x)}
    if isinstance(x, float):
        return {"t": "float", "v": repr(x)}
    if x is None:
        return {"t": "null"}
    if isinstance(x, str):
        return {"t": "str", "v": x}
    return {"t": "other", "v": type(x).__name__}


out = []
for text in json.load(sys.stdin):
    try:
        data = yaml.load(text, Loader=get_yaml_loader())
    except yaml.MarkedYAMLError as e:
        pm = e.problem_mark
        out.append({"problem": e.problem, "context": e.context,
                    "line": pm.line + 1 if pm else None, "col": pm.column + 1 if pm else None})
        continue
    except Exception as e:  # noqa: BLE001
        out.append({"other": type(e).__name__, "message": str(e)[:200]})
        continue
    try:
        # OmegaConf.load's second half: what the loader gave must make a DictConfig (a None key,
        # say, does not); OmegaConf's errors carry no YAML position.
        if isinstance(data, dict):
            OmegaConf.create(data)
        out.append({"value": typed(data)})
    except Exception as e:  # noqa: BLE001
        out.append({"other": type(e).__name__, "message": str(e)[:200]})
json.dump(out, sys.stdout)

"""What Python's int(), float(), bool-from-text, str() of a float and json.dumps() give for each
case: the builtins Hydra's cast functions end in (hydra-core is not packaged for Debian, so its
grammar cannot run here; these are the parts where a JavaScript port can drift). Reads
[{fn, value}] on stdin (floats tagged {"float": repr}), writes [{ok: typed}] or [{error, message}]."""
import json
import sys


def untyped(v):
    if isinstance(v, dict):
        if set(v) == {"float"}:
            return float(v["float"])
        return {k: untyped(x) for k, x in v.items()}
    if isinstance(v, list):
        return [untyped(x) for x in v]
    return v


def typed(v):
    if isinstance(v, float):
        return {"float": repr(v)}
    if isinstance(v, list):
        return [typed(x) for x in v]
    if isinstance(v, dict):
        return {k: typed(x) for k, x in v.items()}
    return v


def to_str(v):
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


def to_bool(v):
    if isinstance(v, str):
        if v.lower() in ("true", "false"):
            return v.lower() == "true"
        raise ValueError(f"Cannot cast '{v}' to bool")
    return bool(v)


FNS = {"int": int, "float": float, "str": to_str, "bool": to_bool, "json_str": json.dumps}


def apply(fn, v):
    # Hydra's casts go into lists and dict values (the override grammar docs); json_str takes the whole.
    if fn != "json_str" and isinstance(v, list):
        return [apply(fn, x) for x in v]
    if fn != "json_str" and isinstance(v, dict):
        return {k: apply(fn, x) for k, x in v.items()}
    return FNS[fn](v)


out = []
for case in json.load(sys.stdin):
    try:
        out.append({"ok": typed(apply(case["fn"], untyped(case["value"])))})
    except Exception as e:  # noqa: BLE001
        out.append({"error": type(e).__name__, "message": str(e)})
json.dump(out, sys.stdout)

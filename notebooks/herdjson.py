"""Run the herd binary with --format json and return the parsed document.

The notebooks do no Monte Carlo of their own: herd computes, they show and
explain. The binary is $HERD when set, else ../bin/herd (what `make build`
writes), found relative to this file so that any working directory works.
"""

import json
import os
import subprocess

HERD = os.environ.get("HERD") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bin", "herd")


def herd(*args):
    """herd ARGS --format json, parsed. Raises with herd's own message on failure."""
    if not os.path.exists(HERD):
        raise FileNotFoundError(f"{HERD} not found: run `make build` first (or set HERD)")
    cmd = [HERD, *map(str, args), "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr}")
    return json.loads(p.stdout)


def ci(e, digits=1):
    """'mean [lo, hi]' for an estimate; exact values have no interval."""
    if e is None:
        return "—"
    iv = e.get("ci95")
    m = e.get("mean", e.get("value"))
    if not iv or iv[0] is None:
        return f"{m:.{digits}f}"
    if iv[0] == iv[1] == m:
        return f"{m:.{digits}f} (every trial)"
    return f"{m:.{digits}f} [{iv[0]:.{digits}f}, {iv[1]:.{digits}f}]"


def quantile(q):
    """'value [lo, hi]' for an order-statistic quantile."""
    lo, hi = q["ci95"]
    hi = "∞" if hi is None else f"{hi:g}"
    lo = "−∞" if lo is None else f"{lo:g}"
    return f"{q['value']:g} [{lo}, {hi}]"


def palette():
    """Each policy's colour in herd's figures, {policy: '#RRGGBB'}: herd plots --palette,
    so that a notebook's plots read like the paper's."""
    return {e["policy"]: e["color"] for e in herd("plots", "--palette")["policies"]}

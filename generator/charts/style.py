"""How the charts look: one colour per B, one dash per W, the palettes' colours and the sizes.

A trace names a colour *role* (`none`, `queue`, `cap1` … for the settings; `p50` and `p99`,
two greys, for the bars of a percentile, so no colour of a B means something else; `s1` …
for other series; `ref` for reference lines). Each role has a colour for Material's light
palette and one for its dark palette, chosen from the Okabe-Ito set (safe for colour-blind
readers) and darkened or lightened until each stands out from its background (contrast ≥ 3,
the WCAG level for graphics; tests/test_charts.py checks it). The chart specs carry the
light colours (a spec is valid Plotly by itself); the site reads both from the CSS variables
this module writes (`chart_css()`, built into assets/css/chart-colours.css), so the stand-in
SVGs and the drawn charts follow the reader's palette. Run through `python -m generator build`.
"""

from lab.rawformat.names import NONE

# role: (light palette, dark palette)
COLOURS = {
    "none": ("#222222", "#f0f0f0"),
    "queue": ("#aa3f8c", "#e69fc8"),
    "cap1": ("#c45100", "#f5853f"),
    "cap2": ("#0072b2", "#56b4e9"),
    "cap3": ("#00805c", "#2fcb98"),
    "cap4": ("#8c6d00", "#f0e442"),
    "s1": ("#0072b2", "#56b4e9"),
    "s2": ("#c45100", "#f5853f"),
    "s3": ("#00805c", "#2fcb98"),
    "s4": ("#aa3f8c", "#e69fc8"),
    "s5": ("#8c6d00", "#f0e442"),
    "s6": ("#0f8fcf", "#9ad2f5"),
    "ref": ("#5e5e5e", "#a0a0a0"),
    "p50": ("#8a8a8a", "#8c8c8c"),
    "p99": ("#303030", "#e6e6e6"),
}
BACKGROUNDS = {"light": "#ffffff", "dark": "#1e2129"}  # Material's default and slate
CAP_ROLES = ("cap1", "cap2", "cap3", "cap4")

# Plotly's dash names, in the order W grows; W = 0 is solid.
DASHES = ("solid", "dot", "dash", "longdash", "dashdot", "longdashdot")
LINE_WIDTH = 2
NONE_WIDTH = 4  # the baseline, no batching, drawn heavier than every setting

# Design sizes of the two stand-ins (the text column on a desktop and on a phone, px).
WIDE, NARROW = 688, 358
NARROW_BELOW = 480  # a chart box narrower than this gets the narrow layout
FONT_SIZE = 12


def caps(design: dict) -> list:
    """The caps B > 1 of the design, ascending."""
    return sorted({s["max_batch"] for s in design["setting"].values() if s["max_batch"] > 1})


def waits(design: dict) -> list:
    """The waits W of the batched settings, ascending (W = 0 first)."""
    return sorted({s["max_wait_ms"] for s in design["setting"].values() if s["max_batch"] > 1})


def setting_role(design: dict, name: str) -> str:
    """The colour role of a setting: one per B (none, queue B=1, then each cap)."""
    setting = design["setting"][name]
    if setting["batcher"] == NONE:
        return "none"
    if setting["max_batch"] <= 1:
        return "queue"
    return CAP_ROLES[caps(design).index(setting["max_batch"]) % len(CAP_ROLES)]


def setting_dash(design: dict, name: str) -> str:
    """The dash of a setting: one per W (solid for W = 0, none and queue B=1)."""
    wait = design["setting"][name]["max_wait_ms"]
    known = waits(design)
    return DASHES[known.index(wait) % len(DASHES)] if wait in known else DASHES[0]


def setting_width(design: dict, name: str) -> int:
    return NONE_WIDTH if design["setting"][name]["batcher"] == NONE else LINE_WIDTH


def colour(role: str) -> str:
    """The light palette's colour of a role (what a spec carries)."""
    return COLOURS[role][0]


def b_label(design: dict, name: str) -> str:
    """The B a setting is filed under in the reader's choices: 'none', '1', '32' …"""
    setting = design["setting"][name]
    return NONE if setting["batcher"] == NONE else str(setting["max_batch"])


def w_label(design: dict, name: str) -> str:
    return f"{design['setting'][name]['max_wait_ms']:g}"


def dasharray(dash: str, width: float) -> str:
    """Plotly's dash pattern for a line of `width` px, as SVG's stroke-dasharray."""
    unit = max(width, 3)
    pattern = {
        "solid": (),
        "dot": (1, 1),
        "dash": (3, 3),
        "longdash": (5, 5),
        "dashdot": (3, 1, 1, 1),
        "longdashdot": (5, 2, 1, 2),
    }[dash]
    return ",".join(f"{step * unit:g}" for step in pattern)


def chart_css() -> str:
    """The palettes' chart colours as CSS variables, and a class per role for the SVGs."""
    light = "\n".join(f"  --chart-{role}: {pair[0]};" for role, pair in COLOURS.items())
    dark = "\n".join(f"  --chart-{role}: {pair[1]};" for role, pair in COLOURS.items())
    classes = "\n".join(f".k-{role} {{ color: var(--chart-{role}); }}" for role in COLOURS)
    return (
        "/* Written by the generator (generator/charts/style.py): the charts' colours. */\n"
        f':root,\n[data-md-color-scheme="default"] {{\n{light}\n}}\n'
        f'[data-md-color-scheme="slate"] {{\n{dark}\n}}\n{classes}\n'
    )

"""Render the page templates (site_src/pages/**/*.md.j2) into Markdown under docs/.

Jinja2 with StrictUndefined: a template naming a value the results do not have fails the
build with the template's path, line and the missing name. Other files under the pages
folder are copied as they are, except other `.j2` files (macros and includes the
templates import), which are not pages. The filters (ms, us, pct, times, num, rate, yesno,
article, than, amount_range, run_label, run_number: generator/wording.py; from_json, slug)
and the context
(results, fig, cell, names, setting_name, ref, pictures, code_region, explorer_example,
python_download, page) are documented in generator/SCHEMA.md. `ref("a.b")` quotes a fact of the
original lesson's box (site_src/reference_box.json); an unknown one fails the build naming it.
Run through `python -m generator build`.
"""

import functools
import json
from pathlib import Path

import jinja2

from generator.arithmetic import figures as named_figures
from generator.arithmetic import stats
from generator.arithmetic.bench_files import comparison_label
from generator.charts import html as chart_html
from generator.charts.drawings import all_pictures
from generator.pages import examples, sources
from generator.wording import (
    amount_range,
    article,
    how_often,
    in_words,
    megabytes,
    ms,
    num,
    pct,
    quoted,
    rate,
    run_label,
    run_number,
    than,
    times,
    us,
    yesno,
)
from lab.rawformat.names import setting_name, slug

TEMPLATE_SUFFIX = ".md.j2"


class PageError(Exception):
    """A template that cannot be rendered; the message names the template and the value."""


# --- filters --------------------------------------------------------------------------


def from_json(text) -> object:
    """A JSON text recorded in the results (the captured exchange's bodies), parsed, so a page
    can show its parts without the generator storing them twice."""
    return json.loads(text)


def strict(function):
    """A filter that fails on an undefined value with Jinja's message naming it."""

    def checked(value, *args):
        if isinstance(value, jinja2.Undefined):
            value._fail_with_undefined_error()
        return function(value, *args)

    return checked


FILTERS = {
    name: strict(f)
    for name, f in {
        "num": num,
        "ms": ms,
        "us": us,
        "pct": pct,
        "times": times,
        "rate": rate,
        "yesno": yesno,
        "from_json": from_json,
        "slug": slug,
        "article": article,
        "than": than,
        "amount_range": amount_range,
        "run_label": run_label,
        "run_number": run_number,
        "megabytes": megabytes,
        "in_words": in_words,
        "how_often": how_often,
        "comparison_label": comparison_label,
    }.items()
}


# --- rendering ------------------------------------------------------------------------------


def environment(pages_dir: Path) -> jinja2.Environment:
    """One environment per templates folder and process: Jinja keeps the templates it
    compiled (compiling is most of a small build's time) and compiles one again when its
    file changes (auto_reload), so an edited or broken template is still read afresh."""
    return _environment(str(Path(pages_dir).resolve()))


@functools.lru_cache(maxsize=16)
def _environment(pages_dir: str) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(pages_dir),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(FILTERS)
    return env


def reference_lookup(path: Path | None):
    """ref("a.b"): a fact of the reference box by dotted path, quoted (ref("a.b", true): as
    a number, to compare with a figure); a PageError naming an unknown path or a path that
    is not a single value."""
    facts = None

    def ref(dotted: str, as_number: bool = False) -> str | float:
        nonlocal facts
        if path is None:
            raise PageError(f"ref({dotted!r}): this build has no reference box")
        if facts is None:
            facts = json.loads(Path(path).read_text())
        value = facts
        for part in dotted.split("."):
            if not isinstance(value, dict) or part not in value:
                raise PageError(f"{Path(path).name} has no '{dotted}'")
            value = value[part]
        if isinstance(value, dict | list):
            raise PageError(f"{Path(path).name} '{dotted}' is not a single value")
        if as_number:  # to compare with this lab's figures: "2.50" is the number 2.5
            try:
                return float(value)
            except ValueError as error:
                raise PageError(f"{Path(path).name} '{dotted}' is not a number") from error
        return quoted(value)

    return ref


def chart_lookup(specs: dict | None):
    """chart_figure(name, caption, b=…, w=…, views=…): a chart's HTML (generator/charts/html.py),
    or a PageError naming a chart this campaign has no spec for. Pages rendered without specs
    (specs=None) get the bare chart box; the build checks it against the specs it writes."""

    def chart_figure(name: str, caption: str, b=None, w=None, views=False) -> str:
        if specs is None:
            return f'<div class="chart" data-chart="{name}"></div>\n\n{caption}\n'
        if name not in specs:
            raise PageError(f"chart '{name}' has no spec (the generator did not write it)")
        return chart_html.figure(name, specs[name], caption, b=b, w=w, views=views)

    return chart_figure


def context(
    results: dict,
    names: dict,
    reference: Path | None = None,
    specs: dict | None = None,
    python_bytes: int | None = None,
    others: tuple = (),
) -> dict:
    """What every template sees: the results, the figures' values, a cell lookup, the
    campaign's names (quiet_rate, busy_rate, stages), setting_name, ref, chart_figure, the
    pictures ({name: inline <svg>}, generator/charts/drawings.py), code_region(NAME), a marked
    region of the lab's code (generator/pages/sources.py), explorer_example(FILE), a file of
    site_src/examples/ with the box's answer to it (generator/pages/examples.py; `others`, the
    compared campaigns' results, are what its campaign(NAME) reads), python_download, the
    bytes of the vendored Pyodide the explorer downloads (None: not known to this build); under
    the rounds rule, signs_of(diff) (how many rounds were − and +) and rounds_resolvable(diff)
    (the smallest shift those rounds would have told apart), generator/arithmetic/stats.py;
    switchback_comparison(arm_a, arm_b), the campaign's switchback comparison of those arms
    (None without one; generator/arithmetic/figures.py `comparison`, the figures' own lookup)."""
    figures = {name: entry["value"] for name, entry in results.get("figures", {}).items()}

    def cell(setting: str, rate_key: str) -> dict:
        try:
            return results["part_b"]["settings"][setting]["rates"][rate_key]
        except KeyError as error:
            raise jinja2.UndefinedError(f"no Part B cell {setting!r} at {rate_key!r}") from error

    def code_region(name: str) -> dict:
        try:
            return sources.region(name)
        except sources.SourceError as error:
            raise PageError(str(error)) from error

    def switchback_comparison(arm_a: str, arm_b: str) -> dict | None:
        try:
            return named_figures.comparison(results, arm_a, arm_b)
        except named_figures.Absent:
            return None

    def explorer_example(name: str) -> dict:
        try:
            return examples.run(name, results, others=others)
        except examples.ExampleError as error:
            raise PageError(str(error)) from error

    return {
        "results": results,
        "fig": figures,
        "cell": cell,
        "names": names,
        "setting_name": setting_name,
        "ref": reference_lookup(reference),
        "chart_figure": chart_lookup(specs),
        "pictures": all_pictures(results),
        "code_region": code_region,
        "explorer_example": explorer_example,
        "signs_of": lambda diff: stats.signs_of(diff["diffs"]),
        "rounds_resolvable": lambda diff: stats.rounds_resolvable(diff["diffs"]),
        "switchback_comparison": switchback_comparison,
        "python_download": python_bytes,
        "compared_loaded": bool(others),  # the compared campaigns' results, for their examples
    }


def template_line(error: BaseException, filename: str) -> int | None:
    """The template line an error came from (Jinja maps template frames to its lines)."""
    line = None
    trace = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == filename:
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def render(env: jinja2.Environment, relative: str, values: dict) -> str:
    filename = str(Path(env.loader.searchpath[0]) / relative)
    try:
        template = env.get_template(relative)
        return template.render(**values)
    except jinja2.TemplateSyntaxError as error:
        raise PageError(
            f"{error.filename}:{error.lineno}: template syntax: {error.message}"
        ) from error
    except PageError as error:  # an unknown reference fact
        raise PageError(f"{where_in(error, filename)}: {error}") from error
    except (jinja2.UndefinedError, TypeError, ValueError) as error:
        where = where_in(error, filename)
        raise PageError(f"{where}: {error} (a value the results do not have)") from error


def where_in(error: BaseException, filename: str) -> str:
    line = template_line(error, filename)
    return f"{filename}:{line}" if line else filename


def page_outputs(
    results: dict,
    pages_dir: Path,
    names: dict,
    reference: Path | None = None,
    specs: dict | None = None,
    python_bytes: int | None = None,
    others: tuple = (),
) -> dict[str, bytes]:
    """{path relative to docs/: content} of every rendered template and copied file
    (`python_bytes`, `others`: see `context`)."""
    pages_dir = Path(pages_dir)
    if not pages_dir.is_dir():
        return {}
    env = environment(pages_dir)
    values = context(results, names, reference, specs, python_bytes, others)
    outputs = {}
    for path in sorted(pages_dir.rglob("*")):
        if not path.is_file() or path.name.startswith("."):
            continue
        relative = path.relative_to(pages_dir).as_posix()
        if relative.endswith(TEMPLATE_SUFFIX):
            target = relative[: -len(".j2")]
            outputs[target] = render(env, relative, {**values, "page": target}).encode()
        elif relative.endswith(".j2"):
            continue  # a macro or include file the templates import: not a page
        else:
            outputs[relative] = path.read_bytes()
    return outputs

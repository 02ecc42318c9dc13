"""The documentation site, built as CI builds it (``mkdocs build --strict``), read as a
visitor's browser would read it: nothing loaded from elsewhere, math already typeset, one API
page per subpackage, cross-references resolved."""

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import exactdp

ROOT = Path(__file__).resolve().parents[1]
API_PAGES = ("mechanisms", "distributions", "analysis", "pld", "optimality", "audit", "exact",
             "io")
SCRIPT_OR_STYLE = re.compile(r"<script\b[^>]*\bsrc=\"(?P<s>[^\"]*)\"|"
                             r"<link\b[^>]*\bhref=\"(?P<l>[^\"]*)\"[^>]*>")
ROLE = re.compile(r":(class|func|meth|attr|data|mod|exc|obj):")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs", reason="install the extra: pip install -e '.[docs]'")
    if shutil.which("node") is None:
        pytest.skip("the docs render their math with KaTeX at build time: install node")
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(out)], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    return out


def pages(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): p.read_text() for p in site.rglob("*.html")}


def test_no_page_loads_anything_from_elsewhere(site):
    """Scripts and stylesheets are the site's own files (no CDN: the site works offline)."""
    outside = {}
    for name, text in pages(site).items():
        for m in SCRIPT_OR_STYLE.finditer(text):
            url = m["s"] if m["s"] is not None else m["l"]
            is_resource = m["s"] is not None or 'rel="stylesheet"' in m[0] or "preconnect" in m[0]
            if is_resource and re.match(r"(https?:)?//", url):
                outside.setdefault(name, []).append(url)
    assert outside == {}
    assert (site / "assets" / "katex" / "katex.min.css").is_file()
    assert list((site / "assets" / "katex" / "fonts").glob("KaTeX_Main-Regular.woff2"))


def test_formula_page_math_is_typeset(site):
    """Every formula of the formula page left the build as KaTeX HTML, none as TeX source
    waiting for a script."""
    text = (site / "formulas" / "index.html").read_text()
    source = (ROOT / "docs" / "formulas.md").read_text()
    typeset = text.count('<span class="katex">')
    assert typeset >= source.count("$") // 4  # inline $..$ pairs and $$..$$ displays
    assert text.count('class="katex-display"') >= 1
    assert "\\(" not in text and "\\[" not in text
    # the display of section 1, typeset: its TeX is kept only as the MathML annotation
    assert "\\Pr[M(q) = r] \\le e^{\\varepsilon} \\Pr[M(q&#x27;) = r]." in text or (
        "\\Pr[M(q) = r] \\le e^{\\varepsilon} \\Pr[M(q') = r]." in html.unescape(text))


def test_one_api_page_per_subpackage_holding_every_public_name(site):
    texts = {p: (site / "api" / p / "index.html").read_text() for p in API_PAGES}
    anchors = {p: set(re.findall(r'id="(exactdp\.[\w.]+)"', t)) for p, t in texts.items()}
    missing = []
    for name in exactdp.__all__:
        obj = getattr(exactdp, name)
        if not any(a.endswith("." + name) and a.count(".") <= 3 for s in anchors.values()
                   for a in s):
            missing.append(f"{obj.__module__}.{name}")
    assert missing == []
    # no page is a wall of headings: the largest holds a fraction of the reference
    assert max(len(a) for a in anchors.values()) < 0.6 * sum(len(a) for a in anchors.values())


def test_docstring_roles_became_links(site):
    """No ``:class:`` or ``:func:`` is printed literally; most of them link to their entry."""
    literal = {n: ROLE.findall(html.unescape(re.sub(r"<[^>]+>", "", t)))
               for n, t in pages(site).items() if n.startswith("api/")}
    assert {n: r for n, r in literal.items() if r} == {}
    analysis = (site / "api" / "analysis" / "index.html").read_text()
    assert analysis.count('class="autorefs autorefs-internal"') > 20
    # a role in a docstring of the analysis, resolved in its module's scope
    assert re.search(r'<a class="autorefs autorefs-internal"[^>]*href="[^"]*#exactdp\.analysis'
                     r'[\w.]*\.Witness"', analysis)


def test_mechanism_signatures_show_real_defaults(site):
    """A mechanism's declared parameters show their defaults (``sensitivity = 1``;
    ``epsilon`` required), not the descriptors that declare them."""
    text = html.unescape(re.sub(r"<[^>]+>", "", (site / "api" / "mechanisms" / "index.html")
                                .read_text()))
    assert "epsilon_parameter()" not in text and "lambda func" not in text
    assert re.search(r"ExponentialMechanism\(\s*epsilon: Expr,\s*sensitivity: Expr = 1,", text)


def test_a_wide_display_formula_scrolls_instead_of_being_clipped():
    """A display formula wider than the column scrolls sideways (the stylesheet), and the
    suite page's integral is set on two aligned lines (it was clipped at the right edge)."""
    css = (ROOT / "docs" / "stylesheets" / "extra.css").read_text()
    rule = css[css.index(".md-typeset .katex-display"):]
    assert "overflow-x: auto" in rule[:rule.index("}")]
    suite = (ROOT / "docs" / "suite.md").read_text()
    block = suite[suite.index(r"\Pr[\text{answers}]") - 40:]
    block = block[:block.index("$$", 40)]
    assert r"\begin{aligned}" in block and max(len(line) for line in block.splitlines()) < 80

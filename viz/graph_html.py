"""The merge graph as an offline HTML document for an iframe, built through pyvis.

pyvis assembles the vis-network node, edge and option data (from :mod:`viz.graph_elements`); the
page HTML comes from this module's own template because pyvis 0.3.2's templates load vis-network
and Bootstrap from CDNs. The embedded HTML loads vis-network from Streamlit's static serving
(``/app/static/``, see ``static/README.md``) and contains no http(s) address at all;
:func:`standalone_html` inlines the library for a download that works anywhere. Every token string
reaches the HTML either through :func:`viz.escaping.script_json` (node and edge data: vis-network
draws labels on its canvas and shows string tooltips as text) or through
:func:`viz.escaping.html_escape` (the legend, the notes).

Clicking a node recentres the graph: inside the explorer the iframe's host element carries a
``__mergeGraphClick`` hook (set by the page's ``st.components.v2`` component); without it (a
plain ``st.iframe``) the click loads ``?type=...`` in the top window.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from pyvis.network import Network

from core.bpe.graph import Neighbourhood, type_node
from core.bpe.model import BTETokeniser
from viz.escaping import html_escape, script_json
from viz.graph_elements import graph_figure
from viz.graph_style import SMALL_FONT, TYPES_VIEW

STATIC_DIR = Path(__file__).resolve().parent.parent / "static"
VIS_JS, VIS_CSS = "vis-network.min.js", "vis-network.css"
STATIC_URL = "/app/static/"  # where Streamlit serves STATIC_DIR (server.enableStaticServing)
LEGIBLE_ZOOM = 12 / SMALL_FONT  # the view never fits a graph smaller than this: labels stay 12 px or more


def legend_html(items: Sequence[tuple[str, str]]) -> str:
    return "".join(
        f'<span class="item"><span class="sw" style="{html_escape(style)}"></span>{html_escape(text)}</span>'
        for style, text in items
    )


def vis_options(node_count: int) -> dict:
    """vis-network options: positions come from :func:`viz.graph_layout.place`, so no layout engine and no physics."""
    return {
        "layout": {"hierarchical": {"enabled": False}, "improvedLayout": False},
        "physics": {"enabled": False},
        "interaction": {
            "hover": True,
            "navigationButtons": True,
            "keyboard": False,
            "tooltipDelay": 120,
            "multiselect": False,
            "zoomSpeed": 0.6,
        },
        "edges": {
            "arrows": {"to": {"enabled": True, "scaleFactor": 0.7}},
            "smooth": False,
            "font": {"size": SMALL_FONT, "strokeWidth": 4, "align": "middle"},
            "selectionWidth": 1.5,
        },
        "nodes": {"margin": 10, "shadow": False},
    }


def build_network(nodes: Sequence[dict], edges: Sequence[dict], height: int = 560) -> Network:
    """A pyvis Network holding the nodes, edges and options (its CDN-loading templates unused)."""
    net = Network(height=f"{height}px", width="100%", directed=True, cdn_resources="remote")
    for node in nodes:
        data = dict(node)
        net.add_node(data.pop("id"), label=data.pop("label"), shape=data.pop("shape"), color=data.pop("color"), **data)
    for edge in edges:
        data = {"arrows": {"to": {"enabled": True, "scaleFactor": 0.7}}, **edge}
        net.add_edge(data.pop("from"), data.pop("to"), **data)
    net.options = vis_options(len(nodes))
    return net


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Merge graph</title>
%(head)s
<style>
html, body { margin: 0; padding: 0; height: 100%%; background: #ffffff; color: #1c1917;
  font-family: "Source Sans Pro", "DejaVu Sans", system-ui, sans-serif; }
body { display: flex; flex-direction: column; }
.legend { flex: none; display: flex; flex-wrap: wrap; gap: 2px 16px; padding: 5px 10px; font-size: 15px;
  border-bottom: 1px solid #e7e5e4; background: #fafaf9; }
.legend .item { white-space: nowrap; }
.legend .sw { display: inline-block; box-sizing: border-box; width: 22px; height: 15px;
  vertical-align: -2px; margin-right: 6px; }
.note { flex: none; padding: 3px 10px; font-size: 15px; color: #44403c; }
#graph { width: 100%%; flex: 1 1 auto; min-height: 300px; }
#graph.failed { display: flex; align-items: center; justify-content: center; font-size: 18px; color: #b91c1c; }
div.vis-tooltip { white-space: pre-line; font-family: "DejaVu Sans Mono", monospace; font-size: 15px;
  line-height: 1.35; max-width: 520px; }
</style></head>
<body>
<div class="legend" id="legend">%(legend)s</div>
%(note)s<div id="graph" aria-label="%(aria)s"></div>
<script>
(function () {
  var container = document.getElementById("graph");
  if (typeof vis === "undefined") {
    container.className = "failed";
    container.textContent = "The graph library (vis-network) did not load: static/vis-network.min.js must be "
      + "served at /app/static/ (server.enableStaticServing = true in .streamlit/config.toml).";
    return;
  }
  var nodes = new vis.DataSet(%(nodes)s);
  var edges = new vis.DataSet(%(edges)s);
  var center = %(center)s;
  var legible = %(legible)s;  // the smallest zoom at which every label is 12 px or more
  var network = new vis.Network(container, {nodes: nodes, edges: edges}, %(options)s);
  window.network = network;
  network.on("afterDrawing", function () { container.setAttribute("data-drawn", "1"); });
  function frame() {
    network.fit({animation: false, maxZoomLevel: 1.1});
    network.moveTo({scale: network.getScale() * 0.92, animation: false});  // a margin for the buttons
    if (network.getScale() < legible) {  // too small to read on a projector: zoom in around the center,
      var positions = network.getPositions();  // keeping the top of the graph in view
      var ys = Object.keys(positions).map(function (id) { return positions[id].y; });
      var half = container.clientHeight / 2 / legible - 30;
      var top = Math.min.apply(null, ys) + half, bottom = Math.max.apply(null, ys) - half;
      var y = Math.min(Math.max(positions[center].y, top), Math.max(top, bottom));
      network.moveTo({position: {x: positions[center].x, y: y}, scale: legible, animation: false});
    }
  }
  frame();
  network.on("hoverNode", function () { container.style.cursor = "pointer"; });
  network.on("blurNode", function () { container.style.cursor = "default"; });
  network.on("click", function (params) {
    if (!params.nodes.length) return;
    var node = nodes.get(params.nodes[0]);
    if (!node || typeof node.focus !== "string") return;
    var host = window.frameElement;
    if (host && typeof host.__mergeGraphClick === "function") {
      host.__mergeGraphClick(node.focus);
    } else if (window.top !== window) {
      var url = new URL(window.top.location.href);
      url.searchParams.set("type", node.shown || node.focus);  // the URL carries the readable form
      window.top.location.href = url.toString();
    }
  });
  window.addEventListener("resize", frame);
})();
</script>
</body></html>
"""


def render_html(
    net: Network,
    center: str,
    *,
    legend: str = "",
    note: str = "",
    aria: str = "",
    inline: Mapping[str, str] | None = None,
) -> str:
    """The document for the iframe (the graph fills the height the legend leaves). ``inline`` maps
    VIS_JS / VIS_CSS to their text to embed them (a standalone file); otherwise they are loaded from
    STATIC_URL."""
    nodes, edges, _heading, _height, _width, options = net.get_network_data()
    if inline:
        head = f"<style>{inline[VIS_CSS]}</style>\n<script>{inline[VIS_JS]}</script>"
    else:
        head = f'<link rel="stylesheet" href="{STATIC_URL}{VIS_CSS}">\n<script src="{STATIC_URL}{VIS_JS}"></script>'
    return _TEMPLATE % {
        "head": head,
        "legend": legend,
        "note": f'<div class="note">{html_escape(note)}</div>\n' if note else "",
        "aria": html_escape(aria),
        "nodes": script_json(nodes),
        "edges": script_json(edges),
        "center": script_json(type_node(center)),
        "legible": f"{LEGIBLE_ZOOM:.3f}",
        "options": script_json(json.loads(options)),
    }


def graph_html(
    tokeniser: BTETokeniser, hood: Neighbourhood, view: str = TYPES_VIEW, *, note: str = "", **options
) -> str:
    """The whole pipeline: :func:`viz.graph_elements.graph_figure` (``options`` are its keywords), a pyvis network, the
    offline HTML document."""
    nodes, edges, legend, aria = graph_figure(tokeniser, hood, view, **options)
    return render_html(build_network(nodes, edges), hood.center, legend=legend_html(legend), note=note, aria=aria)


@lru_cache(maxsize=2)
def _library(static_dir: Path) -> tuple[str, str]:
    return ((static_dir / VIS_JS).read_text(encoding="utf-8"), (static_dir / VIS_CSS).read_text(encoding="utf-8"))


def standalone_html(document: str, static_dir: Path = STATIC_DIR) -> str:
    """``document`` with vis-network embedded instead of loaded from the app (a download)."""
    js, css = _library(static_dir)
    if "</script" in js.lower() or "</style" in css.lower():
        raise ValueError("vis-network cannot be embedded safely")
    linked = f'<link rel="stylesheet" href="{STATIC_URL}{VIS_CSS}">\n<script src="{STATIC_URL}{VIS_JS}"></script>'
    return document.replace(linked, f"<style>{css}</style>\n<script>{js}</script>", 1)


def html_key(document: str) -> str:
    """A short content hash: the component reloads its iframe only when the graph changed."""
    return hashlib.sha1(document.encode("utf-8")).hexdigest()[:16]

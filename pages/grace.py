"""GRACE: compose a scene and read its concepts; the global concept map; GRACE against the baselines."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from app.catalog import BY_KEY
from app.ui.controls import bound, seed_input
from app.ui.details import details
from app.ui.live import live_panel
from app.ui.pictures import first_screen
from app.ui.plots import COLORS, show
from app.ui.verdicts import page_header
from app.ui.warmup import import_page
from core.grace.composer import CLIP_SEED, embed_scene
from core.grace.metrics import reconstruction_cosine, sparsity
from core.grace.refit import refit_curve
from core.grace.scenes import ATTRIBUTES, RGB, VIDEO_ATTRIBUTES, make_scene
from core.grace.shipped import load_embeddings, load_shipped

SYSTEM = BY_KEY["grace"]
LIVE: dict = {}                  # the refit panel shows by default
PROBED = "grace:probed"          # session: {scene key: embedding} embedded live with the small CLIP
CLIP_ON = "grace:clip-on"        # session: the visitor has asked for the CLIP once; embed off-grid scenes at once
CLIP_MODULES = ("torch", "transformers.models.clip.modeling_clip", "core.grace.clip")
MAIN_COLUMNS = {"method": "method", "L0": "L0", "reconstruction cosine (centred)": "reconstruction",
                "trustworthiness": "trustworthiness", "triplet agreement": "triplets",
                "similarity Spearman": "similarity ρ", "concept-attribute agreement": "attribute agreement",
                "object recall (main)": "object recall", "top-K precision": "top-K precision",
                "retrieval P@50": "retrieval P@50", "texture neighbours": "texture neighbours",
                "distractor share": "distractor share", "zero-shot (mean)": "zero-shot"}
NAMED_BARS = {"concept-attribute agreement": "attribute agreement", "object recall (main)": "object recall",
              "retrieval P@50": "retrieval P@50", "trustworthiness": "trustworthiness (name-free)",
              "texture neighbours": "texture neighbours (unnamed)"}
BAR_METHODS = ("GRACE", "SpLiCE", "no fitting", "shuffled labels")
HELP = {"L0": "mean active concepts per scene (matched across methods)",
        "reconstruction": "cosine between a centred embedding and its reconstruction from the codes",
        "trustworthiness": "scikit-learn trustworthiness of the codes (10 neighbours, cosine)",
        "triplets": "fraction of 20,000 triplets whose code similarity orders them as their true attributes do",
        "similarity ρ": "Spearman correlation of code cosine with the number of shared attributes",
        "attribute agreement": "largest code among an attribute's words is the main object's true value",
        "object recall": "share of the main object's words among the scene's top-K concepts (K = its true words)",
        "top-K precision": "share of the top-K concepts that name some object of the scene",
        "retrieval P@50": "the 50 scenes with the largest code for a word: share whose main object has it",
        "texture neighbours": "share of the 10 nearest code neighbours with the same texture, a concept no word "
                              "names (chance 0.5)",
        "distractor share": "code mass on words no caption uses (lower is better)",
        "zero-shot": "zero-shot accuracy through the reconstructions (raw embeddings: first row)"}


@st.cache_resource(show_spinner=False)
def shipped():
    return load_shipped()


@st.cache_resource(show_spinner=False)
def shipped_embeddings():
    return load_embeddings()


@st.cache_resource(show_spinner=False)
def clip_model():
    import_page(CLIP_MODULES)   # under the shell's import lock: never race the warm-up for a half-built module
    from core.grace.clip import load_model

    return load_model()


def scene_key(attrs: dict, second: dict | None, seed: int, video: bool = False) -> str:
    return repr((sorted(attrs.items()), sorted((second or {}).items()), int(seed), video))


def scene_embedding(attrs: dict, second: dict | None, seed: int, video: bool = False) -> np.ndarray | None:
    """The shipped embedding of this scene, else one embedded live for this session; None if neither.

    Live embedding happens only once the visitor has asked for the CLIP (:func:`probe`): from then on
    the model is loaded and one scene takes milliseconds, so off-grid scenes are embedded as they come.
    """
    found = shipped_embeddings().scenes.lookup(attrs, second, seed, video)
    if found is None:
        found = st.session_state.get(PROBED, {}).get(scene_key(attrs, second, seed, video))
    if found is None and st.session_state.get(CLIP_ON):
        found = probe(attrs, second, seed, video)
    return found


def probe(attrs: dict, second: dict | None, seed: int, video: bool = False) -> np.ndarray:
    """Load the small CLIP (imports torch and transformers) and embed this one scene for the session."""
    st.session_state[CLIP_ON] = True
    embedding = embed_scene(attrs, second, seed=seed, video=video, model=clip_model())
    st.session_state.setdefault(PROBED, {})[scene_key(attrs, second, seed, video)] = embedding
    return embedding


def attribute_controls(names: dict, prefix: str, defaults: dict) -> dict:
    cols = st.columns(len(names))
    return {name: bound(col.selectbox, name.capitalize(), key=f"{prefix}{name}", options=list(values),
                        index=list(values).index(defaults[name]))
            for col, (name, values) in zip(cols, names.items())}


def render() -> None:
    page_header(SYSTEM)
    decompositions, doc = shipped()
    st.subheader("Compose a scene", divider="gray")
    embedding = composer_section(decompositions["image"])
    st.subheader("The global concept map", divider="gray")
    concept_map_section(decompositions["image"], embedding)
    if first_screen():
        return
    st.subheader("GRACE against the baselines", divider="gray")
    baselines_section(doc)
    st.subheader("Clips: motion is a concept only time shows", divider="gray")
    video_section(decompositions["video"])
    st.subheader("Refit GRACE live", divider="gray")
    refit_section(doc)


def composer_section(image_methods: dict) -> np.ndarray | None:
    """The composer, the scene, its concepts by method and their reconstruction; the scene's embedding."""
    attrs = attribute_controls(ATTRIBUTES, "", {"shape": "circle", "colour": "red", "size": "large",
                                                "position": "left"})
    c1, c2, c3, c4 = st.columns([1, 1, 1, 1])
    with c1:
        with_second = bound(st.toggle, "Tiny second object", key="second", value=True)
    second = None
    if with_second:
        second = {"shape": bound(c2.selectbox, "Its shape", key="s_shape", options=list(ATTRIBUTES["shape"]), index=1),
                  "colour": bound(c3.selectbox, "Its colour", key="s_colour", options=list(ATTRIBUTES["colour"]),
                                  index=2)}
    with c4:
        seed = seed_input()
    scene = make_scene(attrs, second, seed=seed)
    embedding = scene_embedding(attrs, second, seed)
    left, right = st.columns([1, 2.6])
    with left:
        st.image(upscale(scene.images[0]), caption=scene.captions[0], width=230)
    with right:
        if embedding is None:
            st.info(f"Every composition is shipped already embedded at seed {shipped_embeddings().scenes.image_seed}; "
                    f"this one, at seed {seed}, is not. Embedding it loads the small CLIP on this server (torch "
                    "and transformers: seconds the first time); after that, every scene you compose is embedded "
                    "as you go.")
            if st.button("Embed this scene with the small CLIP", key="probe", icon=":material/bolt:"):
                with st.spinner("Loading the small CLIP and embedding the scene…"):
                    probe(attrs, second, seed)
                st.rerun()
            return None
        codes = {m: image_methods[m].encode(embedding)[0] for m in ("GRACE", "SpLiCE", "no fitting")}
        show(concept_bars(codes, image_methods["GRACE"].vocabulary, attrs), key="chart-concepts")
        if shipped_embeddings().scenes.lookup(attrs, second, seed) is None:
            st.caption("Embedded live with the small CLIP: this scene is not among the shipped ones.")
    m = st.columns(4)
    for i, name in enumerate(("GRACE", "SpLiCE")):
        recon = image_methods[name].reconstruct(codes[name][None])
        m[2 * i].metric(f"{name}: reconstruction cosine", f"{reconstruction_cosine(embedding, recon):.3f}")
        m[2 * i + 1].metric(f"{name}: active concepts", int(sparsity(codes[name][None])))
    return embedding


def concept_map_section(image_methods: dict, embedding: np.ndarray | None) -> None:
    c1, c2, c3 = st.columns([2, 1.6, 1])
    colour_by = bound(c1.segmented_control, "Colour the held-out scenes by", key="colour_by",
                      options=list(ATTRIBUTES), default="colour")
    projection = bound(c2.segmented_control, "Axes", key="axes", options=["lda", "pca"], default="lda",
                       format_func={"lda": "LDA", "pca": "PCA"}.get,
                       help="LDA: the two directions that best separate the chosen attribute's values; "
                            "PCA: the two directions of largest variance")
    distractors = bound(c3.toggle, "Distractors", key="distractors", value=False,
                        help="Also show the vocabulary's distractor words (concepts no scene has)")
    show(concept_map(image_methods, colour_by or "colour", embedding, projection or "lda", distractors),
         key="chart-map")
    st.markdown(
        "**What you are seeing.** 1,000 held-out scenes of the harder world (colour tied to shape 70% of the "
        "time, two to four objects, half the main objects striped: a texture no concept word names) in the "
        "centred CLIP space, coloured by their true "
        "attribute and projected on the two directions that best separate that attribute's values (LDA) or on "
        "the first two principal components (PCA). Arrows are the concept words' directions on the same axes: "
        "bold for the attribute you colour by, grey for other attributes, light grey for distractor words no "
        "caption uses; words nearly orthogonal to both axes are left out. The star is the scene you composed. "
        "GRACE learns one map for this whole space, so a scene's concepts are read off where it sits, not "
        "re-optimised per image.")


def baselines_section(doc: dict) -> None:
    show(controls_figure(doc["tables"]["image"]), key="chart-controls")
    st.markdown(
        "**Controls.** *No fitting* is ReLU(z·Dᵀ), GRACE's initialisation: CLIP's zero-shot classifier over the "
        "words, with no training. It is a reference, a bar to compare with, not a null. *Shuffled labels* is "
        "GRACE's own map with its words' names permuted: a null. Every name-free measure (trustworthiness, "
        "triplets, reconstruction) is identical to GRACE's, so only the measures that read the names can show "
        "alignment. The verdicts add a second null, GRACE fitted on a random dictionary at GRACE's sparsity. A "
        "measure on which a null does as well as GRACE is not evidence for GRACE.")
    st.dataframe(metrics_frame(doc["tables"]["image"]), hide_index=True,
                 column_config={name: st.column_config.NumberColumn(name, help=text, format="%.3f")
                                for name, text in HELP.items()})
    st.caption(claim_summary(doc["tables"]["image"]))
    for _ in details("Every metric, per attribute, images and clips"):
        for kind in ("image", "video"):
            st.markdown(f"**{kind.capitalize()}s**")
            st.dataframe(pd.DataFrame(doc["tables"][kind]).round(3), hide_index=True)


def upscale(image: np.ndarray, factor: int = 8) -> np.ndarray:
    return image.repeat(factor, 0).repeat(factor, 1)


def concept_bars(codes: dict, vocabulary: list, truth: dict, top: int = 6) -> go.Figure:
    fig = make_subplots(rows=1, cols=len(codes), subplot_titles=[f"{m}: top concepts" for m in codes],
                        horizontal_spacing=0.12)
    true_words = set(truth.values())
    for i, (method, row) in enumerate(codes.items(), 1):
        order = [j for j in np.argsort(-np.abs(row))[:top] if abs(row[j]) > 1e-6][::-1]
        words = [vocabulary[j] for j in order]
        fig.add_trace(go.Bar(x=row[order], y=words, orientation="h", showlegend=False,
                             marker_color=[COLORS[2] if w in true_words else "#AAAAAA" for w in words]), row=1, col=i)
        fig.update_xaxes(title_text="code", row=1, col=i)
    fig.update_layout(height=260, margin=dict(t=40, b=40))
    return fig


def value_colours(attribute: str) -> dict:
    """A colour per value of ``attribute``: for "colour", the scenes' own RGB (red is red); else the theme's."""
    if attribute == "colour":
        return {v: "rgb({}, {}, {})".format(*RGB[v]) for v in ATTRIBUTES["colour"]}
    return {v: COLORS[i % len(COLORS)] for i, v in enumerate(ATTRIBUTES[attribute])}


def concept_map(methods: dict, colour_by: str, point: np.ndarray | None, projection: str = "lda",
                show_distractors: bool = False) -> go.Figure:
    from core.grace.concept_map import biplot, projection_axes

    grace = methods["GRACE"]
    z = grace.space.centre(methods["test_embeddings"])
    attrs = shipped_embeddings().test_attributes
    labels = [a[colour_by] for a in attrs]
    axes = projection_axes(z, labels, projection)
    xy, ends = biplot(z, grace.dictionary, axes)
    fig = go.Figure()
    chosen = value_colours(colour_by)
    for value in ATTRIBUTES[colour_by]:
        mask = np.array([label == value for label in labels])
        fig.add_trace(go.Scatter(x=xy[mask, 0], y=xy[mask, 1], mode="markers", name=value, opacity=0.5,
                                 marker=dict(size=5, color=chosen[value])))
    other_words = {v for name, values in ATTRIBUTES.items() if name != colour_by for v in values}
    words, points, colours = [], [], []
    longest = np.linalg.norm(ends, axis=1).max()
    for word, end in zip(grace.vocabulary, ends):
        if word not in chosen and (np.linalg.norm(end) < 0.25 * longest
                                   or (word not in other_words and not show_distractors)):
            continue   # words nearly orthogonal to both axes would pile up unreadably at the origin
        colour = chosen.get(word, "#777777" if word in other_words else "#BBBBBB")
        fig.add_annotation(x=end[0], y=end[1], ax=0, ay=0, xref="x", yref="y", axref="x", ayref="y", text="",
                           showarrow=True, arrowhead=2, arrowwidth=2.5 if word in chosen else 1, arrowcolor=colour)
        words.append(f"<b>{word}</b>" if word in chosen else word)
        points.append(end * 1.08)
        colours.append(colour)
    points = np.array(points).reshape(-1, 2)
    fig.add_trace(go.Scatter(x=points[:, 0], y=points[:, 1], mode="text", text=words, showlegend=False,
                             textfont=dict(color=colours, size=13), hoverinfo="skip"))
    if point is not None:
        here = (grace.space.centre(point) - z.mean(0)) @ axes.T
        fig.add_trace(go.Scatter(x=here[:, 0], y=here[:, 1], mode="markers", name="your scene",
                                 marker=dict(symbol="star", size=18, color="black",
                                             line=dict(color="white", width=1))))
    names = ("LD1", "LD2" if colour_by != "size" else "PC1 of the rest") if projection == "lda" else ("PC1", "PC2")
    fig.update_layout(height=540, xaxis_title=names[0], yaxis_title=names[1], yaxis_scaleanchor="x")
    return fig


def controls_figure(table: list) -> go.Figure:
    """Named-concept and name-free measures side by side, GRACE against SpLiCE and the two controls."""
    rows = {r["method"]: r for r in table}
    fig = go.Figure()
    for i, method in enumerate(m for m in BAR_METHODS if m in rows):
        fig.add_trace(go.Bar(name=method, x=list(NAMED_BARS.values()), y=[rows[method][k] for k in NAMED_BARS],
                             marker_color=COLORS[i % len(COLORS)],
                             marker_pattern_shape="/" if method in ("no fitting", "shuffled labels") else ""))
    fig.update_layout(barmode="group", height=360, yaxis_title="held-out score", yaxis_range=[0, 1.02],
                      legend=dict(orientation="h", x=0.5, xanchor="center", y=1.12))
    return fig


def metrics_frame(table: list) -> pd.DataFrame:
    frame = pd.DataFrame(table)
    return frame[[c for c in MAIN_COLUMNS if c in frame]].rename(columns=MAIN_COLUMNS).round(3)


def claim_summary(table: list) -> str:
    rows = {r["method"]: r for r in table}
    g, s, raw = rows["GRACE"], rows["SpLiCE"], rows["raw embeddings"]
    n, x = rows["no fitting"], rows["shuffled labels"]
    return (f"At matched sparsity (GRACE L0 {g['L0']:.1f}, SpLiCE {s['L0']:.1f}): trustworthiness GRACE "
            f"{g['trustworthiness']:.3f} vs SpLiCE {s['trustworthiness']:.3f}; triplet agreement "
            f"{g['triplet agreement']:.3f} vs {s['triplet agreement']:.3f}. Attribute agreement GRACE "
            f"{g['concept-attribute agreement']:.3f}, no fitting {n['concept-attribute agreement']:.3f}, shuffled "
            f"labels {x['concept-attribute agreement']:.3f}. Zero-shot through GRACE's reconstructions keeps "
            f"{g['zero-shot (mean)'] / raw['zero-shot (mean)']:.0%} of the raw embeddings' accuracy "
            f"({raw['zero-shot (mean)']:.3f}). One replicate (the shipped scenes); the verdicts above use several.")


def video_section(methods: dict) -> None:
    attrs = attribute_controls(VIDEO_ATTRIBUTES, "v_", {"shape": "square", "colour": "yellow", "size": "large",
                                                        "motion": "rightward"})
    clip = make_scene(attrs, None, seed=CLIP_SEED, video=True)
    frames = clip.images[0]
    left, right = st.columns([3.2, 1])
    gap = np.full((96, 6, 3), 255, np.uint8)
    left.image(np.concatenate([x for f in frames for x in (upscale(f, 3), gap)][:-1], 1),
               caption=f"{clip.captions[0]}: the 8 frames")
    weights = np.linspace(0.25, 1.0, len(frames))[:, None, None, None]
    right.image(upscale((frames * weights).max(0).astype(np.uint8), 3), caption="all frames at once, later brighter")
    embedding = scene_embedding(attrs, None, CLIP_SEED, video=True)
    if embedding is None:    # every clip the controls can make is shipped; a missing one means stale assets
        st.error("This clip is missing from assets/grace/embeddings.npz: run python -m core.grace.ship embeddings.")
        return
    codes = {m: methods[m].encode(embedding)[0] for m in ("GRACE", "SpLiCE", "no fitting")}
    show(concept_bars(codes, methods["GRACE"].vocabulary, attrs), key="chart-video-concepts")
    st.caption("A clip's embedding is the mean of its frames plus a learned map of how they change; a mean of "
               "frames alone could not tell leftward from rightward.")


def refit_section(doc: dict) -> None:
    c1, c2 = st.columns(2)
    geometry = bound(c1.slider, "Geometry weight γ", key="gamma", min_value=0.0, max_value=4.0, value=2.0, step=0.5,
                     help="Weight of the neighbourhood-matching term; 0 turns it off")
    sweep = bound(c2.segmented_control, "Sparsity weights α to sweep", key="alphas",
                  options=["light (3 fits)", "full (6 fits)"], default="light (3 fits)") or "light (3 fits)"
    run = live_panel(f"grace:{geometry}:{sweep}", refit_curve, {"geometry": geometry, "full": sweep.startswith("full")},
                     start_label="Refit")
    live = run.result if run is not None and run.state in ("done", "stopped") else None
    show(tradeoff_figure(doc["curves"]["image"], live), key="chart-tradeoff")
    if live is not None and live.stopped:
        st.caption(f"Stopped after {len(live.l0)} of {live.planned} fits: the live curve shows the fits that "
                   "finished; the one in progress was dropped unscored." if len(live.l0) else
                   f"Stopped before the first of {live.planned} fits finished: nothing to add to the curves.")
    st.markdown("**The trade-off.** Each point is one fit, scored on held-out scenes: fewer active concepts "
                "(left) cost reconstruction and neighbourhood faithfulness. The shipped curves are GRACE with and "
                "without its geometry term and SpLiCE across its λ; a live refit adds your γ, fitted on the "
                "same shipped embeddings.")


def tradeoff_figure(curves: list, live) -> go.Figure:
    fig = make_subplots(rows=1, cols=2, subplot_titles=["Trustworthiness", "Reconstruction cosine (centred)"],
                        horizontal_spacing=0.1)
    frame = pd.DataFrame(curves)
    groups = [("GRACE, γ = 0", frame[(frame.method == "GRACE") & (frame.geometry == 0)], COLORS[1], "dash"),
              ("GRACE, γ = 1", frame[(frame.method == "GRACE") & (frame.geometry == 1)], COLORS[0], "solid"),
              ("SpLiCE", frame[frame.method == "SpLiCE"], COLORS[3], "dot")]
    if live is not None and len(live.l0):
        groups.append((f"GRACE, γ = {live.geometry:g} (live)", pd.DataFrame(live.rows()), COLORS[2], "solid"))
    for name, rows, colour, dash in groups:
        rows = rows.sort_values("L0")
        for col, metric in enumerate(("trustworthiness", "reconstruction cosine (centred)"), 1):
            fig.add_trace(go.Scatter(x=rows["L0"], y=rows[metric], mode="lines+markers", name=name, legendgroup=name,
                                     showlegend=col == 1, line=dict(color=colour, dash=dash)), row=1, col=col)
    fig.update_xaxes(title_text="active concepts per scene (L0)")
    fig.update_layout(height=440)   # the template's legend, under the axis titles: plotly makes room for it
    return fig


if __name__ == "__main__":
    render()

"""One call from a notebook: a model's attention drawn by attention-lab's <model-attention>.

    from attention_lab import show
    out = model(**inputs, output_attentions=True)
    show(out.attentions, tokenizer.convert_ids_to_tokens(inputs["input_ids"][0]))

Standard library only: torch and numpy are never imported. `attentions` may be what a Hugging
Face model returns with output_attentions=True (a tuple with one [batch, heads, n, n] tensor
per layer), anything with .tolist() (torch tensors, numpy arrays), or nested lists
[layers][heads][n][n] (or one layer, [heads][n][n]). The result displays itself in Jupyter
(_repr_html_) with the kit (dist/attention-lab.js) inlined, so the notebook works offline and
in nbconvert's HTML export.
"""

import base64
import json
import math
import os
import struct

__all__ = ["show", "AttentionView", "find_kit"]

_HERE = os.path.dirname(os.path.abspath(__file__))
# Where the kit is looked for, in order, when show() is not given one.
_KIT_PLACES = (
    os.path.join(_HERE, "attention-lab.js"),
    os.path.join(_HERE, "..", "dist", "attention-lab.js"),
)
_VIEWS = ("model", "heads", "summary")


def find_kit(kit=None):
    """The path of attention-lab.js: `kit` if given, else $ATTENTION_LAB_JS, else beside this
    module, else the repository's dist/ (after `npm run build`)."""
    places = [kit] if kit else [os.environ.get("ATTENTION_LAB_JS")] + list(_KIT_PLACES)
    for place in places:
        if place and os.path.isfile(place):
            return os.path.abspath(place)
    raise FileNotFoundError(
        "show: kit: attention-lab.js was not found (looked at %s); expected the path of the "
        "built script (npm run build writes dist/attention-lab.js), given as kit= or in "
        "$ATTENTION_LAB_JS" % ", ".join(p for p in places if p))


def _plain(x):
    """Nested lists from a tensor, an array, a tuple or a list (duck-typed: .tolist())."""
    if hasattr(x, "detach") and callable(x.detach):  # a torch tensor that may need grad
        x = x.detach()
    if hasattr(x, "cpu") and callable(x.cpu):
        x = x.cpu()
    if hasattr(x, "tolist") and callable(x.tolist):
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [_plain(e) for e in x]
    return x


def _shape(x, where="attentions"):
    """The shape of a nested list, refusing ragged ones by where they differ."""
    if not isinstance(x, list):
        return ()
    if not x:
        raise ValueError("show: %s is empty; expected [layers][heads][n][n] weights" % where)
    first = _shape(x[0], where + "[0]")
    for i in range(1, len(x)):
        s = _shape(x[i], "%s[%d]" % (where, i))
        if s != first:
            raise ValueError("show: %s is ragged: %s[%d] has shape %s but %s[0] has %s" % (
                where, where, i, list(s), where, list(first)))
    return (len(x),) + first


def _flat(x, out):
    for e in x:
        if isinstance(e, list):
            _flat(e, out)
        else:
            out.append(e)
    return out


class AttentionView(object):
    """What show() returns: Jupyter displays it; .html is the markup; .save(path) writes a page."""

    def __init__(self, markup, kit_text):
        self._markup = markup
        self._kit = kit_text

    @property
    def html(self):
        """The element and the inlined kit: the HTML Jupyter shows."""
        return "<div class=\"attention-lab-show\">\n<script>%s</script>\n%s\n</div>" % (self._kit, self._markup)

    def _repr_html_(self):
        return self.html

    def save(self, path, title="Attention"):
        """Writes a whole page that opens from disk, with nothing fetched."""
        title = title.replace("&", "&amp;").replace("<", "&lt;")
        with open(path, "w", encoding="utf-8") as f:
            f.write("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                    "<title>%s</title>\n</head>\n<body>\n%s\n</body>\n</html>\n" % (title, self.html))
        return path

    def __repr__(self):
        return "<AttentionView: <model-attention> with the kit inlined; display it in Jupyter or .save(path)>"


def _script_safe(text):
    # Inside <script>, only "</script" and "<!--" would end or confuse the element: "<" is
    # written as its JSON escape, which JSON.parse reads back as the same character.
    return text.replace("<", "\\u003c")


def show(attentions, tokens, causal=None, sentence_b_start=None, batch=0, view="model", open_head=None,
         dtype="float32", kit=None, **metadata):
    """A model's attention as <model-attention>, ready for Jupyter to display.

    attentions: a Hugging Face tuple of [batch, heads, n, n] tensors (one per layer; `batch`
        picks the sequence), or [layers][heads][n][n] / [heads][n][n] as nested lists or
        anything with .tolist().
    tokens: the n tokens as the tokenizer wrote them (convert_ids_to_tokens).
    causal: True for a decoder (GPT-2); None: True when every weight above the diagonal is 0.
    sentence_b_start: BERT's sentence pair, the position of sentence B's first token.
    view: 'model', 'heads' or 'summary', the view shown first; open_head: (layer, head) to open.
    dtype: 'float32' (exact for float32 tensors) or 'float16' (half the size).
    kit: the path of attention-lab.js (see find_kit).
    metadata: model=, sentence=, source=, license=... shown under the views.
    """
    a = _plain(attentions)
    shape = _shape(a)
    if len(shape) == 5:  # [layers][batch][heads][n][n]: one sequence of the batch
        if not (isinstance(batch, int) and 0 <= batch < shape[1]):
            raise ValueError("show: batch = %r; expected a whole number from 0 to %d (the batch axis)" % (batch, shape[1] - 1))
        a = [layer[batch] for layer in a]
        shape = shape[:1] + shape[2:]
    if len(shape) not in (3, 4):
        raise ValueError("show: attentions has shape %s; expected [layers][heads][n][n], [heads][n][n], or "
                         "Hugging Face's tuple of [batch, heads, n, n]" % list(shape))
    n = shape[-1]
    if shape[-2] != n:
        raise ValueError("show: each attention pattern is %d x %d; expected square patterns (self-attention)" % (shape[-2], n))
    tokens = [str(t) for t in _plain(tokens)]
    if len(tokens) != n:
        raise ValueError("show: tokens has %d entries but each pattern is %d x %d; expected one token per position" % (len(tokens), n, n))
    flat = _flat(a, [])
    for i, w in enumerate(flat):
        if not isinstance(w, (int, float)) or isinstance(w, bool) or not math.isfinite(w):
            raise ValueError("show: attentions has %r at flat index %d; expected finite numbers" % (w, i))
    if causal is None:
        causal = all(flat[k] == 0 for k in range(len(flat)) if (k % n) > (k // n) % n)
    codes = {"float32": "f", "float16": "e"}
    if dtype not in codes:
        raise ValueError("show: dtype = %r; expected 'float32' or 'float16'" % (dtype,))
    if view not in _VIEWS:
        raise ValueError("show: view = %r; expected one of %s" % (view, ", ".join(repr(v) for v in _VIEWS)))
    raw = struct.pack("<%d%s" % (len(flat), codes[dtype]), *flat)
    data = dict(metadata)
    data.update({"tokens": tokens, "causal": bool(causal),
                 "attentions": {"shape": list(shape), "dtype": dtype, "base64": base64.b64encode(raw).decode("ascii")}})
    if sentence_b_start is not None:
        data["sentenceBStart"] = sentence_b_start
    attrs = ' view="%s"' % view
    if open_head is not None:
        layer, head = open_head
        attrs += ' open="%d.%d"' % (layer, head)
    with open(find_kit(kit), encoding="utf-8") as f:
        kit_text = f.read()
    if "</script" in kit_text.lower() or "<!--" in kit_text:
        raise ValueError("show: kit: the script holds '</script' or '<!--' and cannot be inlined")
    markup = '<model-attention%s>\n<script type="application/json">%s</script>\n</model-attention>' % (
        attrs, _script_safe(json.dumps(data)))
    return AttentionView(markup, kit_text)

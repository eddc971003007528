"""mkdocs-gen-files script: the rule pages, generated at build time (conformance/site/),
and the schema and transcript files offered for download.

Nothing is written into docs/: the pages exist only inside the build. The generated profile
and transcript pages are also added to the nav here, so a new profile in specs/ or a new
transcript needs no edit to mkdocs.yml.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import mkdocs_gen_files

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # building from a checkout without installing the package
    sys.path.insert(0, str(ROOT))

from conformance.site import docsgen, matrix_pages, protocol_hand, variants_play  # noqa: E402

# JHYAP_DOCS_TRANSCRIPTS: build from another transcript folder (tests, drafts); default: the corpus
corpus = os.environ.get("JHYAP_DOCS_TRANSCRIPTS")
specs = os.environ.get("JHYAP_DOCS_SPECS")  # likewise another profile folder
site = docsgen.load_site(
    specs=Path(specs) if specs else None, transcripts=Path(corpus) if corpus else None
)
if site.skipped:  # `jhyap validate` reports them; the site shows the transcripts that load
    logging.getLogger("mkdocs.plugins.jhyap").info(
        "docs: %d transcript problem(s) left some transcripts out; run jhyap validate",
        site.skipped,
    )
for path, text in {**docsgen.generate(site), **docsgen.downloads(site)}.items():
    with mkdocs_gen_files.open(path, "w") as handle:
        handle.write(text)

for path, text in variants_play.generate(site.profiles).items():
    with mkdocs_gen_files.open(path, "w") as handle:
        handle.write(text)

# the protocol page as written, with its example hand drawn from the reference engine's answers
protocol_source = (ROOT / "docs" / protocol_hand.PROTOCOL_PAGE).read_text(encoding="utf-8")
with mkdocs_gen_files.open(protocol_hand.PROTOCOL_PAGE, "w") as handle:
    handle.write(protocol_hand.protocol_page(protocol_source))

# The engines matrix of the bundled engines, from their stored reports (docs/data/matrix/).
matrix = matrix_pages.bundled_matrix(ROOT)
for path, text in matrix_pages.docs_files(matrix).items():
    with mkdocs_gen_files.open(path, "w") as handle:
        handle.write(text)

config = mkdocs_gen_files.config
config["nav"] = matrix_pages.with_engine_pages(docsgen.extend_nav(config["nav"], site), matrix)

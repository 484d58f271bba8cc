"""Fences inside JSX/HTML elements of MDX (Docusaurus) pages: ``<Tabs>``, ``<TabItem>``,
``<details>``, at any indentation, each token at its exact place in the ``.md`` file; the HTML
itself is never read as a command."""

from __future__ import annotations

import pytest

from vlint.extract.markdown import extract
from vlint.model import Invocation, Pos, Span, Token


def arg(invocation: Invocation, text: str) -> Token:
    return next(token for token in invocation.args if token.text == text)


def written(text: str, line: int, needle: str) -> Span:
    """Where ``needle`` is written on ``line`` of ``text`` (its first occurrence there)."""
    column = text.split("\n")[line - 1].index(needle) + 1
    return Span(Pos(line, column), Pos(line, column + len(needle)))


TABS = """\
# Serve

<Tabs>
    <TabItem value="gpu" label="GPU">
        ```bash
        vllm serve org/m \\
            --max-num-seqs 8
        ```
    </TabItem>
    <TabItem value="cpu" label="CPU">
        ```bash
        vllm serve org/m --swap-space 4
        ```
    </TabItem>
</Tabs>
"""


def test_fences_in_tab_items_are_read() -> None:
    first, second = extract("serve.md", TABS)
    assert first.origin == ("markdown", "shell")
    assert first.anchor == written(TABS, 6, "vllm serve")
    assert arg(first, "--max-num-seqs").span == written(TABS, 7, "--max-num-seqs")
    assert arg(second, "--swap-space").span == written(TABS, 12, "--swap-space")


def test_fence_opened_with_more_indentation_than_its_content() -> None:
    text = (
        '<ExplorerTabs groupId="code">\n'
        '  <ExplorerTab value="a" label="Offline">\n'
        "    ```python\n"
        "from vllm import LLM\n"
        "llm = LLM(\n"
        "    model='org/m',\n"
        "    swap_space=4,\n"
        ")\n"
        "```\n"
        "  </ExplorerTab>\n"
        "</ExplorerTabs>\n"
    )
    # As in CommonMark, the content loses up to the opening's four spaces of indentation.
    (found,) = extract("offline.md", text)
    assert found.origin == ("markdown", "python")
    keyword = next(k for k in found.keywords if k.name.text == "swap_space")
    assert keyword.name.span == written(text, 7, "swap_space")


def test_fence_content_keeps_its_indentation_beyond_the_opening() -> None:
    text = (
        "<details>\n"
        "<summary>Offline</summary>\n"
        "      ```python\n"
        "      from vllm import LLM\n"
        "      def main():\n"
        "          return LLM(model='org/m', swap_space=4)\n"
        "      ```\n"
        "</details>\n"
    )
    (found,) = extract("offline.md", text)
    keyword = next(k for k in found.keywords if k.name.text == "swap_space")
    assert keyword.name.span == written(text, 6, "swap_space")


def test_tabs_inside_a_list_item_paragraph() -> None:
    text = (
        "- Run the container:\n"
        "  <Tabs>\n"
        '      <TabItem value="nemo" label="NeMo">\n'
        "          ```bash\n"
        "          docker run --gpus all vllm/vllm-openai:v0.9.0 \\\n"
        "              --model org/m --max-num-seqs 8\n"
        "          ```\n"
        "      </TabItem>\n"
        "  </Tabs>\n"
    )
    (found,) = extract("docker.md", text)
    assert found.deployment.image is not None
    assert found.deployment.image.span == written(text, 5, "vllm/vllm-openai:v0.9.0")
    assert arg(found, "--max-num-seqs").span == written(text, 6, "--max-num-seqs")


def test_heredoc_manifest_in_a_fence_in_a_tab_item() -> None:
    text = (
        "<Tabs>\n"
        '  <TabItem value="k8s" label="Kubernetes">\n'
        "    ```sh\n"
        "    kubectl apply -f - <<'EOF'\n"
        "    apiVersion: v1\n"
        "    kind: Pod\n"
        "    spec:\n"
        "      containers:\n"
        "        - image: vllm/vllm-openai:v0.9.0\n"
        '          args: ["--model", "org/m", "--swap-space", "4"]\n'
        "    EOF\n"
        "    ```\n"
        "  </TabItem>\n"
        "</Tabs>\n"
    )
    (found,) = extract("k8s.md", text)
    assert found.origin == ("markdown", "shell", "kubernetes")
    assert arg(found, "--swap-space").span == written(text, 10, "--swap-space")


@pytest.mark.parametrize("html", [
    "<p>vllm serve org/m --max-num-seqs 8</p>\n",
    "<div>\n<p>\nvllm serve org/m --max-num-seqs 8\n</p>\n</div>\n",
    "<div>\nStart it with `vllm serve org/m --max-num-seqs 8`.\n</div>\n",
    "<Tabs>\n  <TabItem value=\"a\">vllm serve org/m --max-num-seqs 8</TabItem>\n</Tabs>\n",
    "<details>\n<summary>vllm serve org/m --max-num-seqs 8</summary>\nSee below.\n</details>\n",
])
def test_html_prose_is_not_read(html: str) -> None:
    assert extract("page.md", "Intro.\n\n" + html) == []
    # Nor when the region holds a fence (read: it is code) beside the prose.
    fence = "```bash\nvllm serve org/other --max-num-seqs 4\n```\n"
    opening, rest = html.split("\n", 1)
    region = opening + "\n" + fence + rest
    (found,) = extract("page.md", "Intro.\n\n" + region)
    assert found.args[0].text == "org/other"


@pytest.mark.parametrize("opening", ["<!--", "<pre>", "<script>"])
def test_fences_in_comments_and_raw_html_are_not_read(opening: str) -> None:
    closing = {"<!--": "-->", "<pre>": "</pre>", "<script>": "</script>"}[opening]
    text = f"{opening}\n```bash\nvllm serve org/m --max-num-seqs 8\n```\n{closing}\n"
    assert extract("page.md", text) == []


def test_html_block_with_a_fence_but_no_launch() -> None:
    text = "<Tabs>\n  <TabItem>\n    ```bash\n    curl localhost:8000/v1/models\n    ```\n"
    assert extract("page.md", text + "  </TabItem>\n</Tabs>\n") == []

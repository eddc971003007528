// The theme's search dialog (role="dialog") has no name; screen readers announce it as
// "dialog" only (axe-core: aria-dialog-name). Name it after its input's label.
(function () {
  const dialog = document.querySelector(".md-search[role='dialog']");
  if (dialog && !dialog.hasAttribute("aria-label")) {
    const input = dialog.querySelector(".md-search__input");
    dialog.setAttribute("aria-label", (input && input.getAttribute("aria-label")) || "Search");
  }
})();

// A code block (or the protocol's drawn hand, on a screen under 340 px) wider than the page
// scrolls sideways: keyboard users reach its hidden part only if it can take focus (WCAG
// 2.1.1; axe-core: scrollable-region-focusable).
(function () {
  function focusable() {
    for (const code of document.querySelectorAll(".md-typeset pre > code, figure.jc-seq")) {
      if (code.scrollWidth > code.clientWidth) {
        code.setAttribute("tabindex", "0");
      } else if (code.getAttribute("tabindex") === "0") {
        code.removeAttribute("tabindex");
      }
    }
  }
  // the theme renders its code blocks after this script: run once it has (document$)
  if (window.document$ && window.document$.subscribe) {
    window.document$.subscribe(() => setTimeout(focusable));
  } else {
    window.addEventListener("load", focusable);
  }
  window.addEventListener("resize", focusable);
})();

// Search ranking of the book (Sphinx's html_search_scorer): chapters and prose pages
// come before entries of the API reference, and search summaries show math as text.
var Scorer = {
  score: (result) => {
    const [docName, , , , score] = result;
    if (docName.startsWith("book/api")) return score - 20;   // the API reference last
    if (docName.startsWith("notebooks/")) return score + 10;  // chapters first
    return score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};

// Summaries are cut from the pages' HTML before MathJax runs, so TeX shows raw:
// drop the math delimiters and the commonest commands.
window.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  const toText = Search.htmlToText;
  Search.htmlToText = (html, anchor) =>
    toText(html, anchor)
      .replace(/\\[()[\]]/g, "")
      .replace(/\\(mathrm|mathbf|mathcal|operatorname|text|hat|bar|tilde|left|right)\b/g, "")
      .replace(/\\([A-Za-z]+)/g, "$1")
      .replace(/[{}]/g, "");
});

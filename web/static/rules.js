// The rules page follows the browser's language: when the page shown is in another language that
// the rules exist in, it is loaded again in the chosen one (the section anchor kept).
"use strict";
(function () {
  const article = document.querySelector("[data-rules-lang]");
  if (!article) return;
  const available = article.dataset.rulesAvailable.split(" ");
  const follow = () => {
    const want = available.includes(LANG) ? LANG : "en";
    if (want !== article.dataset.rulesLang) location.replace(`/rules?lang=${want}${location.hash}`);
  };
  follow();
  document.addEventListener("fudaba-lang", follow);
})();

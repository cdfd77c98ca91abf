// Live updates of a sparknet UI page: the server sends the page's content
// as server-sent events whenever it changes, and this swaps it in.
(function () {
  "use strict";
  var body = document.body;
  var url = body.getAttribute("data-stream");
  var status = document.getElementById("live");
  if (!url || !window.EventSource) {
    return;
  }
  function show(s) {
    if (status) {
      status.textContent = s;
      status.className = s;
    }
  }
  var source = new EventSource(url);
  source.addEventListener("page", function (e) {
    var content = document.getElementById("content");
    if (content) {
      content.innerHTML = e.data;
    }
    body.setAttribute("data-updates", String(Number(body.getAttribute("data-updates") || "0") + 1));
    show("live");
  });
  source.addEventListener("end", function () {
    source.close();
    show("ended");
  });
  source.onerror = function () {
    if (source.readyState === EventSource.CLOSED) {
      show("stopped");
    } else {
      show("reconnecting");
    }
  };
})();

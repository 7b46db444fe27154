"""The web table of ``ddz serve``: the server (:mod:`ddz.play.web.server`, aiohttp), the JSON a
seat may see (:mod:`ddz.play.web.views`) and the page (``static/``: HTML, JavaScript and CSS,
no build step)."""

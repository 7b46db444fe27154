#!/usr/bin/env node
// A complete ddz bot in JavaScript: JSON lines on stdin/stdout (docs/PROTOCOL.md).
// Run it with:  ddz eval "cmd:node examples/bots/biggest_bot.js" random
// Bids 1 when it holds a rocket or a 2, otherwise passes; in play, sheds the legal move with the
// most cards (the lowest such move on ties), and passes only when it has nothing to play.
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  const request = JSON.parse(line);
  let id = 0;
  if (request.phase === "bid") {
    const strong = /RJ|\b2\b/.test(request.hand);
    const bid = request.legal.find((a) => a.bid === request.high_bid + 1);
    id = strong && bid ? bid.id : 0;
  } else {
    let best = -1;
    for (const move of request.legal) {
      const size = move.cards === "pass" ? 0 : move.cards.split(" ").length;
      if (size > best) {
        best = size;
        id = move.id;
      }
    }
  }
  process.stdout.write(JSON.stringify({ id }) + "\n");
});

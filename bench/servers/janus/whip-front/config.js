// simple-whip-server's configuration for the whipbench recipe (install.sh links the unpacked
// server's src/config.js here): Janus on the recipe's WebSocket port, WHIP on 127.0.0.1:7080
// (the bind address is forced by bind-loopback.cjs), no STUN/TURN servers handed to clients.
module.exports = {
  janus: { address: "ws://127.0.0.1:18188" },
  port: 7080,
  rest: "/whip",
  allowTrickle: true,
  strictETags: false,
  iceServers: [],
};

// janode imports createSocket from unix-dgram for its Unix-socket transport; the WHEP front
// talks to Janus over WebSockets only, so this is never called.
exports.createSocket = () => {
  throw new Error("Unix datagram sockets are not available in the whipbench WHEP front");
};

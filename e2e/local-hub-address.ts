// Where e2e/local-hub.ts listens (a module of its own: importing the hub would start it).
export const LOCAL_HUB_PORT = 4320;
export const LOCAL_HUB = `http://127.0.0.1:${LOCAL_HUB_PORT}`;

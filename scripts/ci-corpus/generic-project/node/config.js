function loadConfig(path) {
  if (!path) {
    throw new Error('APP_CONFIG is not set; cannot start the server');
  }
  return require(path);
}

module.exports = { loadConfig };

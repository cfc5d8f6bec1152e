// Run by ../../generic.sh: a plain node script (no test framework) that throws.
const { loadConfig } = require('./config');

const config = loadConfig(process.env.APP_CONFIG);
console.log(`listening on ${config.port}`);

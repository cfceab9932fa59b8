// Expo finds a library's config plugin here (`plugins: ["droptrack-expo"]` in app.json).
module.exports = require('./build/plugin/src/withDropTrack').default;

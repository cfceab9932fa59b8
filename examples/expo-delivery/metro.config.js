// droptrack-expo is installed from the repository (file:../../clients/expo), outside this project:
// Metro must watch it to bundle it.
const { getDefaultConfig } = require('expo/metro-config');
const path = require('path');

const config = getDefaultConfig(__dirname);
config.watchFolders = [path.resolve(__dirname, '../../clients/expo')];
module.exports = config;

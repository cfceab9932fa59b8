# The Expo module's iOS side, as Expo's autolinking installs it: expo-modules-autolinking finds this
# podspec in the package's ios/ folder (or where expo-module.config.json's `apple.podspecPath` says),
# adds `pod 'DropTrackExpo', :path => …` to the app's Podfile and lists `DropTrackModule` (the
# config's `apple.modules`) in the generated ExpoModulesProvider.swift. Name, version and description
# come from the package's package.json, as in Expo's own modules.
#
# It depends on the DropTrack pods (DropTrackLive, DropTrackContract and DropTrackSHA256; podspecs at
# the repository's root), which CocoaPods must find as well: the package ships them and lists them in
# `apple.podspecPath`, or the app's Podfile names them (`pod 'DropTrackLive', :git => …`).
require 'json'

package = JSON.parse(File.read(File.join(__dir__, '..', 'package.json')))
repository = package['repository'].is_a?(Hash) ? package['repository']['url'] : package['repository']

Pod::Spec.new do |s|
  s.name           = 'DropTrackExpo'
  s.module_name    = 'DropTrackExpo'
  s.version        = package['version']
  s.summary        = package['description']
  s.description    = package['description']
  s.license        = package['license']
  s.author         = package['author'] || 'DropTrack contributors'
  s.homepage       = package['homepage'] || repository || "file://#{File.expand_path('..', __dir__)}"
  s.source         = { :git => repository || "file://#{File.expand_path('../../..', __dir__)}" }
  # Expo's default deployment target: the module is available there and guards what needs iOS 16.2, so
  # an app need not raise its target to install it (its Live Activities need 16.2 on the phone).
  s.platforms      = { :ios => '15.1' }
  s.swift_version  = '6.0'
  s.static_framework = true

  s.dependency 'ExpoModulesCore'
  s.dependency 'DropTrackLive', s.version.to_s
  s.dependency 'DropTrackContract', s.version.to_s
  # ActivityKit exists from iOS 16.1: weak, so the app still launches on 15.1.
  s.weak_frameworks = 'ActivityKit'

  s.pod_target_xcconfig = {
    'DEFINES_MODULE' => 'YES',
  }
  s.source_files = '*.swift'
end

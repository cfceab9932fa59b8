require_relative 'packaging/cocoapods/droptrack_pod'

Pod::Spec.new do |s|
  DropTrackPod.configure(s, target: 'DropTrackLive', ios: '15.1',
                            summary: "The app's half of the loop: registers ActivityKit's tokens with a DropTrack " \
                                     'server, reports what the phone saw and reconciles.')
  s.dependency 'DropTrackContract', s.version.to_s
  s.dependency 'DropTrackSHA256', s.version.to_s
  # ActivityKit exists from iOS 16.1: weak, so an app that runs on 15.1 still launches there.
  s.weak_frameworks = 'ActivityKit'
end

require_relative 'packaging/cocoapods/droptrack_pod'

Pod::Spec.new do |s|
  DropTrackPod.configure(s, target: 'DropTrackSHA256', ios: '15.1',
                            summary: 'SHA-256 in plain Swift, for the fingerprints DropTrack shows instead of tokens.')
end

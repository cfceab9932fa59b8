require_relative 'packaging/cocoapods/droptrack_pod'

Pod::Spec.new do |s|
  # The widget itself is iOS 16.2 (it reads `isStale`); an extension targeting less lists it in its
  # bundle under `if #available(iOS 16.2, *)`.
  DropTrackPod.configure(s, target: 'DropTrackWidgets', ios: '15.1',
                            summary: 'The delivery Live Activity widget (Lock Screen and Dynamic Island) in SwiftUI ' \
                                     'and WidgetKit, for the widget extension.')
  s.dependency 'DropTrackContract', s.version.to_s
  # The card's button runs DropTrackLive's DeliveryActionIntent (a LiveActivityIntent: the app performs it).
  s.dependency 'DropTrackLive', s.version.to_s
  s.frameworks = 'SwiftUI', 'WidgetKit'
  # ActivityKit exists from iOS 16.1: weak, so an extension that runs on 15.1 still launches there.
  s.weak_frameworks = 'ActivityKit'
end

// ConferRender: the frame-pacing renderer that models a display's GPU draw budget.
